import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { serviceSignature, signatureHeaders, standardSignature } from '../../../src/webhooks/signature.js';
import { generateWebhookSecret } from '../../../src/webhooks/webhook-secret.js';

// The published Standard Webhooks example (standard-webhooks specification and Svix documentation).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('webhook signatures', () => {
  it('signs webhook-signature exactly as the Standard Webhooks test vector says', () => {
    const signature = standardSignature(VECTOR.secret, VECTOR.id, VECTOR.timestamp, Buffer.from(VECTOR.body));
    expect(signature).toBe(VECTOR.signature);
  });

  it('keys X-Service-Signature with the whole secret string, whsec_ included (checked against openssl)', () => {
    // printf '%s' '{"test": 2432232314}' | openssl dgst -sha256 -hmac 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    expect(serviceSignature(VECTOR.secret, Buffer.from(VECTOR.body))).toBe(
      'sha256=80ec8a89ce3cd22133a1066caecb4d04fea7467657c8514d717ec42c38a5c94c',
    );
  });

  it('produces headers the standardwebhooks library accepts, for every generated secret', () => {
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 200; i++) {
      const secret = generateWebhookSecret();
      const body = Buffer.from(JSON.stringify({ event: 'screening.complete', n: i, name: 'Zoë Ünal' }));
      const headers = signatureHeaders(secret, `delivery-${i}`, now, body);
      expect(new Webhook(secret).verify(body.toString('utf8'), headers)).toMatchObject({ n: i });
    }
  });

  it('changes both signatures when one byte of the body changes', () => {
    const secret = generateWebhookSecret();
    const a = signatureHeaders(secret, 'd1', 1_700_000_000, Buffer.from('{"a":1}'));
    const b = signatureHeaders(secret, 'd1', 1_700_000_000, Buffer.from('{"a":2}'));
    expect(b['x-service-signature']).not.toBe(a['x-service-signature']);
    expect(b['webhook-signature']).not.toBe(a['webhook-signature']);
    expect(() =>
      new Webhook(secret).verify('{"a":2}', {
        ...a,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      }),
    ).toThrow();
  });

  it('generates secrets of whsec_ and 32 random bytes in base64', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    }
  });
});
