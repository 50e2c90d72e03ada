import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/matching/queries.js';
import { KeyPostings } from '../../../src/matching/key-postings.js';

describe('KeyPostings', () => {
  it('gives exactly the ids a map of arrays gives, in the order they were posted, through many growths', () => {
    const random = seededRandom(11);
    const postings = new KeyPostings();
    const reference = new Map<string, number[]>();
    const alphabet = 'ABCDEÉ:ЖZ';
    for (let id = 0; id < 60_000; id++) {
      // Short keys from a small alphabet: many keys are shared, and many hashes meet in a slot.
      const length = 1 + Math.floor(random() * 5);
      let key = '';
      for (let c = 0; c < length; c++) key += alphabet[Math.floor(random() * alphabet.length)];
      postings.add(key, id);
      const ids = reference.get(key);
      if (ids) ids.push(id);
      else reference.set(key, [id]);
    }
    expect(postings.size).toBe(reference.size);
    for (const [key, ids] of reference) expect(postings.ids(key)).toEqual(ids);
  });

  it('keeps the ids under every key, in order, when compacted, and when ids are posted after compaction', () => {
    const random = seededRandom(5);
    const postings = new KeyPostings();
    const reference = new Map<string, number[]>();
    const post = (key: string, id: number) => {
      postings.add(key, id);
      reference.set(key, [...(reference.get(key) ?? []), id]);
    };
    const randomKey = () => 'ABC'.repeat(1 + Math.floor(random() * 3)).slice(Math.floor(random() * 3));
    for (let id = 0; id < 5_000; id++) post(randomKey(), id);
    postings.compact();
    for (const [key, ids] of reference) expect(postings.ids(key)).toEqual(ids);
    for (let id = 5_000; id < 6_000; id++) post(randomKey(), id);
    post('NEW', 6_000);
    for (const [key, ids] of reference) expect(postings.ids(key)).toEqual(ids);
    postings.compact();
    for (const [key, ids] of reference) expect(postings.ids(key)).toEqual(ids);
    // Laid out side by side: walking a key's chain steps to the next entry.
    for (const key of reference.keys()) {
      for (let e = postings.first(key); postings.next(e) >= 0; e = postings.next(e))
        expect(postings.next(e)).toBe(e + 1);
    }
  });

  it('finds nothing under a key never posted, nor under a prefix or an extension of a posted key', () => {
    const postings = new KeyPostings();
    postings.add('D:MHMD', 1);
    postings.add('D:MHMD', 2);
    expect(postings.first('D:MHM')).toBe(-1);
    expect(postings.first('D:MHMDD')).toBe(-1);
    expect(postings.first('')).toBe(-1);
    expect(postings.ids('D:MHMD')).toEqual([1, 2]);
  });

  it('keeps the empty key apart from every other key', () => {
    const postings = new KeyPostings();
    postings.add('', 7);
    postings.add('A', 8);
    expect(postings.ids('')).toEqual([7]);
    expect(postings.ids('A')).toEqual([8]);
  });
});
