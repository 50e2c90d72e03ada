import { createHmac } from 'node:crypto';
import { standardWebhooksKey } from './webhook-secret.js';

/**
 * `X-Service-Signature`: `sha256=` and the lowercase hex HMAC-SHA256 of the exact body bytes,
 * keyed with the secret string as registered (its UTF-8 bytes, `whsec_` included).
 */
export function serviceSignature(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}

/**
 * `webhook-signature` of the Standard Webhooks specification: `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>`, keyed with the base64-decoded bytes after `whsec_`.
 */
export function standardSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: Buffer,
): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${id}.${timestampSeconds}.`)
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The headers that sign one attempt. The id is the delivery's (the same on every retry, so
 * receivers can drop duplicates); the timestamp is the attempt's, so they can refuse replays.
 */
export function signatureHeaders(
  secret: string,
  deliveryId: string,
  timestampSeconds: number,
  body: Buffer,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-service-signature': serviceSignature(secret, body),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardSignature(secret, deliveryId, timestampSeconds, body),
  };
}
