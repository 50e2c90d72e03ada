import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where the generated key lives when `SECRET_KEY` is unset. */
export const SECRET_KEY_FILE = 'secret-key';

/**
 * The key that encrypts secrets at rest: `SECRET_KEY` when set; else the one kept in
 * `DATA_DIR/secret-key`, generated on first use (mode 0600). The file is written under a temporary
 * name and linked into place, so processes starting together agree on one key and none ever reads
 * a half-written file.
 */
export function loadOrCreateSecretKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = path.join(dataDir, SECRET_KEY_FILE);
  const stored = readKeyFile(file);
  if (stored) return stored;
  fs.mkdirSync(dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  const key = readKeyFile(file);
  if (!key) throw new Error(`${file} does not hold a 32-byte hex key`);
  return key;
}

function readKeyFile(file: string): Buffer | undefined {
  if (!fs.existsSync(file)) return undefined;
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${file} does not hold a 32-byte hex key`);
  return Buffer.from(text, 'hex');
}
