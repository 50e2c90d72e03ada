import { randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_BYTES } from './webhook-policy.js';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * A new signing secret: `whsec_` and the base64 of 32 random bytes. Standard base64 (not base64url),
 * because the Standard Webhooks format is and its verifier libraries decode it strictly: with the
 * url alphabet, three secrets in four would contain `-` or `_` and fail in those libraries.
 */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(WEBHOOK_SECRET_BYTES).toString('base64');
}

/** The HMAC key of the Standard Webhooks signature: the bytes the secret encodes after `whsec_`. */
export function standardWebhooksKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  return Buffer.from(encoded, 'base64');
}
