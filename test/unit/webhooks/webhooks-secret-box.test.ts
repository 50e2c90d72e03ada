import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox, SecretUnreadableError } from '../../../src/webhooks/secret-box.js';
import { loadOrCreateSecretKey, SECRET_KEY_FILE } from '../../../src/webhooks/secret-key.js';

describe('webhook secrets at rest', () => {
  const box = new SecretBox(() => randomBytes(32));

  it('seals with AES-256-GCM: the stored value does not contain the secret and opens to it', () => {
    const sealed = box.seal('whsec_abc', 'webhook:1');
    expect(sealed).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc', 'webhook:1')).not.toBe(sealed);
    expect(box.open(sealed, 'webhook:1')).toBe('whsec_abc');
  });

  it('does not open a value moved to another row, altered, or sealed with another key', () => {
    const sealed = box.seal('whsec_abc', 'webhook:1');
    expect(() => box.open(sealed, 'webhook:2')).toThrow(SecretUnreadableError);
    const [v, id, data] = sealed.split(':') as [string, string, string];
    const bytes = Buffer.from(data, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(() => box.open(`${v}:${id}:${bytes.toString('base64')}`, 'webhook:1')).toThrow(
      SecretUnreadableError,
    );
    expect(() => new SecretBox(() => randomBytes(32)).open(sealed, 'webhook:1')).toThrow(/another key/);
  });

  it('uses SECRET_KEY when set, else generates one key into DATA_DIR once (mode 0600) and keeps it', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-secret-key-'));
    try {
      const configured = randomBytes(32);
      expect(loadOrCreateSecretKey(configured, dataDir)).toBe(configured);
      expect(fs.existsSync(path.join(dataDir, SECRET_KEY_FILE))).toBe(false);

      const first = loadOrCreateSecretKey(undefined, dataDir);
      expect(first).toHaveLength(32);
      const file = path.join(dataDir, SECRET_KEY_FILE);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(loadOrCreateSecretKey(undefined, dataDir).equals(first)).toBe(true);
      expect(fs.readdirSync(dataDir)).toEqual([SECRET_KEY_FILE]);

      const sealed = new SecretBox(() => first).seal('whsec_x', 'c');
      expect(new SecretBox(() => loadOrCreateSecretKey(undefined, dataDir)).open(sealed, 'c')).toBe(
        'whsec_x',
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('generates the key only when a secret is first sealed or opened', () => {
    let loads = 0;
    const lazy = new SecretBox(() => {
      loads++;
      return randomBytes(32);
    });
    expect(loads).toBe(0);
    lazy.open(lazy.seal('a', 'c'), 'c');
    expect(loads).toBe(1);
  });
});
