import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/matching/queries.js';
import { toCodePoints } from '../../../src/matching/jaro-winkler.js';
import { MAX_PROBES, mergeKey, postedKeys, probedKeys } from '../../../src/matching/merge-postings.js';
import { withinOneEdit } from '../../../src/matching/one-edit.js';

const near = (single: string, first: string, second: string) =>
  withinOneEdit(toCodePoints(single), toCodePoints(first), toCodePoints(second));

describe('merged pairs are at most one edit from the joined tokens', () => {
  it('accepts the exact join and one substitution, insertion, deletion or adjacent swap', () => {
    expect(near('ALQAIDA', 'AL', 'QAIDA')).toBe(true);
    expect(near('ALQAEDA', 'AL', 'QAIDA')).toBe(true);
    expect(near('BINLADEN', 'BIN', 'LADIN')).toBe(true);
    expect(near('BINLADDIN', 'BIN', 'LADIN')).toBe(true);
    expect(near('BINLAIN', 'BIN', 'LADIN')).toBe(true);
    expect(near('BNILADIN', 'BIN', 'LADIN')).toBe(true);
  });

  it('rejects two edits or more', () => {
    expect(near('BINLADENN', 'BIN', 'LADIN')).toBe(false);
    expect(near('ALKAEDA', 'AL', 'QAIDA')).toBe(false);
    expect(near('ALI', 'AL', 'QAIDA')).toBe(false);
  });
});

/** Whether a key form `posted` is posted under is a key form `probed` probes (merge-postings.ts). */
function sharePosting(posted: number, probed: number): boolean {
  const a = new Int32Array(MAX_PROBES);
  const b = new Int32Array(MAX_PROBES);
  const na = posted < 0 ? 0 : postedKeys(posted, a);
  const nb = probedKeys(probed, b);
  for (let i = 0; i < na; i++) for (let j = 0; j < nb; j++) if (a[i] === b[j]) return true;
  return false;
}

describe('merge postings', () => {
  const codes = (text: string) => toCodePoints(text);

  /** Every merge one edit away with the same first letter is found from either side (the name ceiling relies on it). */
  function checkMerge(single: Int32Array, first: Int32Array, second: Int32Array): boolean {
    const merge = single.length > 0 && single[0] === first[0] && withinOneEdit(single, first, second);
    const pairKey = mergeKey(first, second);
    const singleKey = mergeKey(single);
    if (merge) {
      const label = `${String.fromCodePoint(...single)} / ${String.fromCodePoint(...first, ...second)}`;
      // A query word against a name's pair, and a query pair against a name's word.
      expect(sharePosting(pairKey, singleKey), label).toBe(true);
      expect(sharePosting(singleKey, pairKey), label).toBe(true);
    }
    return merge;
  }

  it('finds the merges the alignment accepts', () => {
    expect(sharePosting(mergeKey(codes('BIN'), codes('LADIN')), mergeKey(codes('BINLADEN')))).toBe(true);
    expect(sharePosting(mergeKey(codes('ALQAIDA')), mergeKey(codes('AL'), codes('QAIDA')))).toBe(true);
    expect(sharePosting(mergeKey(codes('ACE')), mergeKey(codes('A'), codes('EC')))).toBe(true);
  });

  it('finds every merge of short forms, exhaustively', () => {
    const alphabet = ['A', 'B', 'É'];
    const all = (length: number): string[] =>
      length === 0 ? [''] : all(length - 1).flatMap((w) => alphabet.map((c) => w + c));
    const singles = [1, 2, 3, 4, 5, 6].flatMap(all).map(codes);
    let merges = 0;
    for (const joined of [2, 3, 4, 5].flatMap(all)) {
      for (let split = 1; split < joined.length; split++) {
        const [first, second] = [codes(joined.slice(0, split)), codes(joined.slice(split))];
        for (const single of singles) if (checkMerge(single, first, second)) merges++;
      }
    }
    expect(merges).toBeGreaterThan(10_000);
  });

  it('finds every merge of longer forms, and rules most other forms out', () => {
    const random = seededRandom(3);
    const alphabet = 'ABCDE';
    const word = (length: number) =>
      Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const edit = (text: string): string => {
      const at = Math.floor(random() * (text.length + 1));
      const letter = alphabet[Math.floor(random() * alphabet.length)]!;
      switch (Math.floor(random() * 4)) {
        case 0:
          return text.slice(0, at) + letter + text.slice(at);
        case 1:
          return text.slice(0, at) + text.slice(at + 1);
        case 2:
          return text.slice(0, at) + letter + text.slice(at + 1);
        default:
          return text.slice(0, at) + text.slice(at + 1, at + 2) + text.slice(at, at + 1) + text.slice(at + 2);
      }
    };
    let merges = 0;
    let ruledOut = 0;
    for (let k = 0; k < 200_000; k++) {
      const [first, second] = [
        codes(word(1 + Math.floor(random() * 6))),
        codes(word(1 + Math.floor(random() * 6))),
      ];
      const joined = String.fromCodePoint(...first, ...second);
      const single = codes(random() < 0.8 ? edit(joined) : word(2 + Math.floor(random() * 10)));
      if (checkMerge(single, first, second)) merges++;
      else if (!sharePosting(mergeKey(first, second), mergeKey(single))) ruledOut++;
    }
    expect(merges).toBeGreaterThan(50_000);
    expect(ruledOut).toBeGreaterThan(10_000);
  });
});
