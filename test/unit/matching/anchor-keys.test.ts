import { describe, expect, it } from 'vitest';
import { loadListEntities } from '../../../bench/matching/list-names.js';
import { anchorKeys } from '../../../src/matching/anchors.js';
import { KeyPostings } from '../../../src/matching/key-postings.js';
import { prepareName } from '../../../src/matching/prepare.js';
import { Vocabulary } from '../../../src/matching/vocabulary.js';

describe('anchor key postings', () => {
  it('post every token of the real lists under exactly its anchor keys, and under nothing else', () => {
    const vocabulary = new Vocabulary();
    const extra = ['AAAB', 'ABBBA', 'AB', 'ALI', 'محمد', 'علي', 'Владимир', 'Ξενοφών', '李小龍', 'MUHAMMAD'];
    // Every fifth entity: enough tokens of every script and length, at a fifth of the cost.
    for (const entity of loadListEntities().filter((_, k) => k % 5 === 0)) {
      for (const name of entity.names)
        prepareName(name.full, entity.kind === 'person' ? 'person' : 'entity', vocabulary.factory);
    }
    for (const name of extra) prepareName(name, 'person', vocabulary.factory);
    const expected = new KeyPostings();
    let pairs = 0;
    for (const token of vocabulary.tokens) {
      for (const key of new Set(anchorKeys(token).post)) {
        expected.add(key, token.id);
        pairs++;
      }
    }
    expect(vocabulary.tokens.length).toBeGreaterThan(10_000);
    expect(vocabulary.postings.size).toBe(expected.size);
    // One expectation at the end: a million of them would take longer than the comparison.
    const mismatches: string[] = [];
    let checked = 0;
    for (const token of vocabulary.tokens) {
      for (const key of anchorKeys(token).post) {
        const [got, want] = [vocabulary.postings.ids(key).join(), expected.ids(key).join()];
        if (got !== want) mismatches.push(`${key}: ${got} instead of ${want}`);
        checked++;
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(pairs);
  });
});
