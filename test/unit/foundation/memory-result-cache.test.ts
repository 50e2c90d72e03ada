import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryResultCache } from '../../../src/store/result-cache.js';

const HOUR_MS = 3_600_000;
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const textOf = (bytes: Buffer | undefined) => bytes?.toString('utf8');

describe('the in-memory result cache', () => {
  it('answers a cached result with exactly the bytes it was given, in every script', async () => {
    const cache = new MemoryResultCache();
    const texts = [
      '{"entity":"saddam hussein","flags":[]}',
      '{"entity":"صدام حسين","matched":"Ṣaddām Ḥusayn"}',
      '{"entity":"金正恩","note":"Ким Чен Ын","emoji":"🛳️","combining":"Jose\\u0301"}',
      `{"flags":[${Array.from({ length: 400 }, (_, i) => `{"n":${i},"name":"Абу Мухаммад аль-Джулани ${i}"}`).join(',')}]}`,
    ];
    for (const [i, text] of texts.entries()) await cache.set(`key-${i}`, utf8(text), HOUR_MS);
    for (const [i, text] of texts.entries()) expect(textOf(await cache.get(`key-${i}`))).toBe(text);
    expect(await cache.get('never-cached')).toBeUndefined();
  });

  it('bounds what it holds by its compressed bytes, evicting the least recently used results first', async () => {
    // Random bytes do not compress: each of these takes 100 bytes and a few, three fit in 320.
    const cache = new MemoryResultCache(100, 320);
    const random = Object.fromEntries(['a', 'b', 'c', 'd'].map((c) => [c, randomBytes(100)]));
    for (const c of ['a', 'b', 'c']) await cache.set(c, random[c]!, HOUR_MS);
    for (const c of ['c', 'b', 'a']) expect(await cache.get(c)).toEqual(random[c]);
    await cache.set('d', random.d!, HOUR_MS);
    expect(await cache.get('c')).toBeUndefined();
    for (const c of ['a', 'b', 'd']) expect(await cache.get(c)).toEqual(random[c]);
  });

  it('keeps a result compressed: 9 KB of repeated fields fit in 2 KB', async () => {
    const cache = new MemoryResultCache(100, 2_000);
    const result = `{"flags":[${Array.from({ length: 300 }, (_, i) => `{"source":"ofac_sdn","n":${i}}`).join(',')}]}`;
    expect(result.length).toBeGreaterThan(8_000);
    await cache.set('large', utf8(result), HOUR_MS);
    expect(textOf(await cache.get('large'))).toBe(result);
    // A small result, a view into Node's shared pool, comes back whole as well.
    const view = utf8('{"pooled":true}');
    expect(view.buffer.byteLength).toBeGreaterThan(view.byteLength);
    await cache.set('view', view, HOUR_MS);
    expect(textOf(await cache.get('view'))).toBe('{"pooled":true}');
  });

  it('forgets a result once its time to live has passed', async () => {
    const cache = new MemoryResultCache();
    await cache.set('short', utf8('{"ttl":"short"}'), 5);
    await cache.set('long', utf8('{"ttl":"long"}'), HOUR_MS);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await cache.get('short')).toBeUndefined();
    expect(textOf(await cache.get('long'))).toBe('{"ttl":"long"}');
  });

  it('bounds the number of results it holds', async () => {
    const cache = new MemoryResultCache(2, 1_000_000);
    for (const key of ['a', 'b', 'c']) await cache.set(key, utf8(`{"key":"${key}"}`), HOUR_MS);
    expect(await cache.get('a')).toBeUndefined();
    expect(textOf(await cache.get('c'))).toBe('{"key":"c"}');
  });
});
