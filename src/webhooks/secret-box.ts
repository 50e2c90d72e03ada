import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The secret cannot be read back: another key (a `SECRET_KEY` that differs) or a damaged value. */
export class SecretUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnreadableError';
  }
}

/** A short, non-secret name of a key, stored beside each value so a key mismatch is named as such. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update('secret-box key id').update(key).digest('hex').slice(0, 8);
}

/**
 * Encrypts secrets that must stay usable (webhook signing secrets) with AES-256-GCM. Sealed values
 * read `v1:<key id>:<base64 of iv | tag | ciphertext>`. The context (the owning row's id) is
 * authenticated data: a value copied onto another row does not open.
 * The key is obtained on first use, so a generated key file appears only when a secret exists.
 */
export class SecretBox {
  private key: Buffer | undefined;

  constructor(private readonly loadKey: () => Buffer) {}

  seal(plaintext: string, context: string): string {
    const key = this.currentKey();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    return `${VERSION}:${keyFingerprint(key)}:${sealed}`;
  }

  open(sealed: string, context: string): string {
    const [version, keyId, data] = sealed.split(':');
    if (version !== VERSION || !keyId || !data)
      throw new SecretUnreadableError('the stored secret is damaged');
    const key = this.currentKey();
    if (keyId !== keyFingerprint(key)) {
      throw new SecretUnreadableError(
        `the secret was encrypted with another key (${keyId}, this instance has ${keyFingerprint(key)}); ` +
          'every instance needs the same SECRET_KEY',
      );
    }
    const raw = Buffer.from(data, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SecretUnreadableError('the stored secret does not decrypt (damaged or moved to another row)');
    }
  }

  private currentKey(): Buffer {
    this.key ??= this.loadKey();
    return this.key;
  }
}
