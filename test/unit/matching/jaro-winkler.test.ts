import { describe, expect, it } from 'vitest';
import { jaroWinkler, jaroWinklerCodes, toCodePoints } from '../../../src/matching/jaro-winkler.js';

describe('Jaro-Winkler', () => {
  it('reproduces the published reference values', () => {
    expect(jaroWinkler('MARTHA', 'MARHTA')).toBeCloseTo(0.9611, 4);
    expect(jaroWinkler('DWAYNE', 'DUANE')).toBeCloseTo(0.84, 4);
    expect(jaroWinkler('DIXON', 'DICKSONX')).toBeCloseTo(0.8133, 4);
    expect(jaroWinkler('JELLYFISH', 'SMELLYFISH')).toBeCloseTo(0.8963, 4);
  });

  it('scores identical strings exactly 1 and disjoint strings 0', () => {
    expect(jaroWinkler('PUTIN', 'PUTIN')).toBe(1);
    expect(jaroWinkler('ABC', 'XYZ')).toBe(0);
    expect(jaroWinkler('', '')).toBe(1);
    expect(jaroWinkler('A', '')).toBe(0);
  });

  it('does not give the prefix bonus to pairs whose Jaro similarity is 0.7 or less', () => {
    // Jaro(ABCDXYZW, ABCDQRST) = (4/8 + 4/8 + 1) / 3 = 0.6667: the shared prefix must not lift it.
    expect(jaroWinkler('ABCDXYZW', 'ABCDQRST')).toBeCloseTo(2 / 3, 10);
  });

  it('is symmetric and stays within [0, 1] on random strings', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const word = () =>
      Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => 'ABCDEFGHIJ'[Math.floor(random() * 10)],
      ).join('');
    for (let k = 0; k < 2000; k++) {
      const [a, b] = [word(), word()];
      const ab = jaroWinkler(a, b);
      expect(ab).toBe(jaroWinkler(b, a));
      expect(ab).toBeGreaterThanOrEqual(0);
      expect(ab).toBeLessThanOrEqual(1);
    }
  });

  it('counts code points, not UTF-16 units, so astral characters compare as one character', () => {
    expect(toCodePoints('𠀀A').length).toBe(2);
    expect(jaroWinkler('𠀀AB', '𠀀AB')).toBe(1);
    expect(jaroWinkler('𠀀AB', '𠀁AB')).toBeCloseTo(jaroWinkler('XAB', 'YAB'), 10);
  });

  it('compares slices of larger buffers without copying them', () => {
    const buffer = toCodePoints('xxMARTHAyyMARHTAzz');
    expect(jaroWinklerCodes(buffer, 2, 6, buffer, 10, 6)).toBeCloseTo(0.9611, 4);
  });
});
