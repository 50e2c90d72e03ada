import { describe, expect, it } from 'vitest';
import { toCodePoints } from '../../../src/matching/jaro-winkler.js';
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
