import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'cs_live_';
const RANDOM_LENGTH = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);

/** A new key: the prefix and 32 base62 characters (about 190 bits), unbiased by rejection sampling. */
export function generateApiKey(): string {
  let out = '';
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(RANDOM_LENGTH * 2)) {
      // 248 = 4 * 62: bytes above it would favour the first characters of the alphabet.
      if (byte < 248 && out.length < RANDOM_LENGTH) out += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + out;
}

/** Whether a string has the shape of a key; checked before any lookup so junk never reaches the DB. */
export function isWellFormedApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

/** Keys are stored and looked up only as this hash. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function lastFour(key: string): string {
  return key.slice(-4);
}
