import { describe, expect, it } from 'vitest';
import { loadListEntities } from '../../../bench/matching/list-names.js';
import { anchorKeys, packedProbeKeys } from '../../../src/matching/anchors.js';
import { KeyPostings } from '../../../src/matching/key-postings.js';
import { prepareName } from '../../../src/matching/prepare.js';
import { Vocabulary } from '../../../src/matching/vocabulary.js';
import { itWithRealLists } from '../../support/real-lists.js';

describe('anchor key postings', () => {
  itWithRealLists(
    'post every token of the real lists under exactly its anchor keys, and under nothing else',
    (listsDir) => {
      const vocabulary = new Vocabulary();
      const extra = [
        'AAAB',
        'ABBBA',
        'AB',
        'ALI',
        'محمد',
        'علي',
        'Владимир',
        'Ξενοφών',
        '李小龍',
        'MUHAMMAD',
      ];
      // Every fifth entity: enough tokens of every script and length, at a fifth of the cost.
      for (const entity of loadListEntities(listsDir).filter((_, k) => k % 5 === 0)) {
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
    },
  );

  it('look a query token up by its packed probe keys exactly as by its probe keys as text', () => {
    const vocabulary = new Vocabulary();
    const names = [
      'AL QAIDA',
      'Владимир Путин',
      'محمد علي',
      'MOHAMMED BIN SALMAN',
      'AAAB ABBBA',
      'XI JINPING',
    ];
    for (const name of names) prepareName(name, 'person', vocabulary.factory);
    const queries = ['ALQAIDA', 'VLADIMIR PUTNI', 'MUHAMAD ALY', 'AB SALMAN', 'AAB', 'ЛИ', 'JI PING'];
    let keys = 0;
    for (const query of queries) {
      for (const token of prepareName(query, 'person').tokens) {
        const packed = packedProbeKeys(token);
        const texts = [...packed.ends].map((end, k) =>
          String.fromCharCode(...packed.chars.subarray(k === 0 ? 0 : packed.ends[k - 1], end)),
        );
        expect(new Set(texts)).toEqual(new Set(anchorKeys(token).probe));
        texts.forEach((text, k) => {
          const found: number[] = [];
          const postings = vocabulary.postings;
          for (let e = postings.firstPacked(packed, k); e >= 0; e = postings.next(e))
            found.push(postings.idAt(e));
          expect(found).toEqual(postings.ids(text));
          keys += found.length;
        });
      }
    }
    // Some probes do find tokens: the comparison is not only of empty lists.
    expect(keys).toBeGreaterThan(10);
  });
});
