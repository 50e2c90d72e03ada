import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** Shortest password accepted, in characters (Unicode code points). */
export const PASSWORD_MIN_LENGTH_CHARS = 12;
/** Longest password accepted, in characters: bounds the work one sign-in attempt can ask for. */
export const PASSWORD_MAX_LENGTH_CHARS = 1_024;
/**
 * scrypt cost parameter N = 2^15 (OWASP's minimum for scrypt): 32 MB per hash, slow enough to make
 * guessing costly, fast enough for a sign-in.
 */
export const SCRYPT_COST_LOG2 = 15;
export const SCRYPT_BLOCK_SIZE = 8;
export const SCRYPT_PARALLELISM = 1;
export const SCRYPT_SALT_BYTES = 16;
export const SCRYPT_KEY_BYTES = 32;
/** Node refuses scrypt above 32 MB of memory by default; N = 2^15, r = 8 needs exactly that. */
const SCRYPT_MAX_MEMORY_BYTES = 64 * 1024 * 1024;
/** A generated password: 18 random bytes, 24 base64url characters (144 bits). */
export const GENERATED_PASSWORD_BYTES = 18;

const HASH_FORMAT = /^scrypt\$(\d{1,2})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function derive(password: string, salt: Buffer, keyBytes: number, options: ScryptOptions): Promise<Buffer> {
  // NFC first, so the same password typed on two systems that compose accents differently matches.
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Whether a password is acceptable: a reason to show the person, or undefined. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH_CHARS)
    return `must be at least ${PASSWORD_MIN_LENGTH_CHARS} characters long`;
  if (length > PASSWORD_MAX_LENGTH_CHARS)
    return `must be at most ${PASSWORD_MAX_LENGTH_CHARS} characters long`;
  return undefined;
}

/**
 * The stored form `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`: the parameters travel with the hash,
 * so a later, higher cost applies to new passwords while old ones still verify.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT_SALT_BYTES);
  const key = await derive(password, salt, SCRYPT_KEY_BYTES, {
    N: 2 ** SCRYPT_COST_LOG2,
    r: SCRYPT_BLOCK_SIZE,
    p: SCRYPT_PARALLELISM,
    maxmem: SCRYPT_MAX_MEMORY_BYTES,
  });
  return [
    'scrypt',
    SCRYPT_COST_LOG2,
    SCRYPT_BLOCK_SIZE,
    SCRYPT_PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** Compares in constant time; a stored value that is not a scrypt hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = HASH_FORMAT.exec(stored);
  if (!match) return false;
  const [, costLog2, blockSize, parallelism, salt, hash] = match;
  const expected = Buffer.from(hash!, 'base64url');
  if (expected.length === 0 || [...password].length > PASSWORD_MAX_LENGTH_CHARS) return false;
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), expected.length, {
    N: 2 ** Number(costLog2),
    r: Number(blockSize),
    p: Number(parallelism),
    maxmem: SCRYPT_MAX_MEMORY_BYTES,
  });
  return timingSafeEqual(actual, expected);
}

/** A random password for an operator to hand over (printed once, never stored in clear). */
export function generatePassword(): string {
  return randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url');
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of a random password at the current cost: sign-in verifies against it when the email is
 * unknown, so that an unknown email costs the same work (and time) as a wrong password.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(generatePassword());
  return dummyHash;
}
