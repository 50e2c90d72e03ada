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

  it('bounds what it holds by bytes, evicting the least recently used results first', async () => {
    // Twelve ASCII characters are 12 bytes: three fit in 40 bytes, a fourth does not.
    const cache = new MemoryResultCache(100, 40);
    const text = (c: string) => c.repeat(12);
    for (const c of ['a', 'b', 'c']) await cache.set(c, utf8(text(c)), HOUR_MS);
    for (const c of ['c', 'b', 'a']) expect(textOf(await cache.get(c))).toBe(text(c));
    await cache.set('d', utf8(text('d')), HOUR_MS);
    expect(await cache.get('c')).toBeUndefined();
    for (const c of ['a', 'b', 'd']) expect(textOf(await cache.get(c))).toBe(text(c));
    // A three-byte character counts three: four of them take 12 bytes, as twelve ASCII ones do.
    await cache.set('e', utf8('金正恩金'), HOUR_MS);
    expect(await cache.get('a')).toBeUndefined();
    expect(textOf(await cache.get('e'))).toBe('金正恩金');
  });

  it('keeps a buffer of its own as it is, and copies a view into a shared one', async () => {
    const cache = new MemoryResultCache();
    const own = Buffer.allocUnsafeSlow(4);
    own.write('{"a"');
    await cache.set('own', own, HOUR_MS);
    expect(await cache.get('own')).toBe(own);
    // A small Buffer.from is a view into Node's 8 KB pool: kept, it would hold the whole slab.
    const view = utf8('{"pooled":true}');
    expect(view.buffer.byteLength).toBeGreaterThan(view.byteLength);
    await cache.set('view', view, HOUR_MS);
    const kept = await cache.get('view');
    expect(kept?.buffer.byteLength).toBe(view.byteLength);
    expect(textOf(kept)).toBe('{"pooled":true}');
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
