import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedDatabaseLock } from '../../../src/store/embedded-lock.js';

function folder(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'css-lock-'));
}

describe('embedded database lock', () => {
  it('refuses a folder whose lock belongs to a running process', () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'pglite.lock'), String(process.ppid));
    expect(() => EmbeddedDatabaseLock.acquire(dir)).toThrow(/in use by process/);
  });

  it('takes over a lock left by a process that no longer runs, and releases it', () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'pglite.lock'), '999999999');
    const lock = EmbeddedDatabaseLock.acquire(dir);
    expect(fs.readFileSync(path.join(dir, 'pglite.lock'), 'utf8')).toBe(String(process.pid));
    expect(fs.readdirSync(dir)).toEqual(['pglite.lock']);
    lock.release();
    expect(fs.existsSync(path.join(dir, 'pglite.lock'))).toBe(false);
  });
});
