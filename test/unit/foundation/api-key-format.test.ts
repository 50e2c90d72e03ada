import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../../src/accounts/api-key-format.js';

describe('API key format', () => {
  it('generates cs_live_ and 32 base62 characters, different every time', () => {
    const keys = Array.from({ length: 1000 }, generateApiKey);
    for (const key of keys) expect(key).toMatch(/^cs_live_[0-9A-Za-z]{32}$/);
    expect(new Set(keys).size).toBe(1000);
  });

  it('uses every base62 character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      for (const c of generateApiKey().slice(8)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2000 * 32) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.2);
  });

  it('recognises only well-formed keys', () => {
    expect(isWellFormedApiKey(generateApiKey())).toBe(true);
    expect(isWellFormedApiKey(`cs_live_${'a'.repeat(31)}`)).toBe(false);
    expect(isWellFormedApiKey(`cs_test_${'a'.repeat(32)}`)).toBe(false);
    expect(isWellFormedApiKey(`cs_live_${'a'.repeat(31)}-`)).toBe(false);
  });

  it('hashes with SHA-256 as lowercase hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
