import { describe, expect, it } from 'vitest';
import {
  generatePassword,
  hashPassword,
  PASSWORD_MIN_LENGTH_CHARS,
  passwordProblem,
  verifyPassword,
} from '../../../src/accounts/passwords.js';

describe('dashboard passwords', () => {
  it('are stored as salted scrypt hashes that carry their parameters and verify only the right password', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toBe(await hashPassword('correct horse battery staple'));
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapler', stored)).resolves.toBe(false);
  });

  it('match whatever Unicode composition the keyboard produced', async () => {
    const stored = await hashPassword('caf\u00e9 au lait, s\u0027il vous pla\u00eet');
    await expect(verifyPassword('cafe\u0301 au lait, s\u0027il vous plai\u0302t', stored)).resolves.toBe(
      true,
    );
  });

  it('never match a stored value that is not a scrypt hash', async () => {
    for (const stored of ['', 'plain text password', 'scrypt$15$8$1$$', 'bcrypt$2b$...']) {
      await expect(verifyPassword('plain text password', stored)).resolves.toBe(false);
    }
  });

  it('must be at least 12 characters long, counted in characters rather than bytes', () => {
    expect(passwordProblem('x'.repeat(PASSWORD_MIN_LENGTH_CHARS - 1))).toMatch(/at least 12/);
    expect(passwordProblem('x'.repeat(PASSWORD_MIN_LENGTH_CHARS))).toBeUndefined();
    expect(passwordProblem('🔑'.repeat(11))).toMatch(/at least 12/);
  });

  it('are generated long and random enough to hand over', () => {
    const generated = new Set(Array.from({ length: 20 }, generatePassword));
    expect(generated.size).toBe(20);
    for (const password of generated) expect(passwordProblem(password)).toBeUndefined();
  });
});
