import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/matching/queries.js';
import { toCodePoints } from '../../../src/matching/jaro-winkler.js';
import { mergeKey, mergeKeysMayMatch } from '../../../src/matching/name-letters.js';
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

describe('merge keys', () => {
  it('never rule out a merge one edit away with the same first letter (the name ceiling relies on it)', () => {
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
    let rejected = 0;
    for (let k = 0; k < 200_000; k++) {
      const [first, second] = [
        toCodePoints(word(1 + Math.floor(random() * 6))),
        toCodePoints(word(1 + Math.floor(random() * 6))),
      ];
      const joined = String.fromCodePoint(...first, ...second);
      const single = toCodePoints(random() < 0.8 ? edit(joined) : word(2 + Math.floor(random() * 10)));
      const keysMatch = mergeKeysMayMatch(mergeKey(single), mergeKey(first, second));
      if (single.length > 0 && single[0] === first[0] && withinOneEdit(single, first, second)) {
        merges++;
        expect(keysMatch, `${String.fromCodePoint(...single)} / ${joined}`).toBe(true);
      } else if (!keysMatch) rejected++;
    }
    expect(merges).toBeGreaterThan(50_000);
    expect(rejected).toBeGreaterThan(10_000);
  });
});
