import { describe, expect, it } from 'vitest';
import { ANCHOR_FREE_CAP } from '../../../src/matching/anchors.js';
import { compareNames } from '../../../src/matching/compare.js';

const person = (a: string, b: string) => compareNames(a, b, 'person').score;
const entity = (a: string, b: string) => compareNames(a, b, 'entity').score;

describe('name scores', () => {
  it('is exactly 1.0 when the prepared names are equal and below 1.0 otherwise', () => {
    expect(person('Vladimir Putin', 'VLADIMIR PUTIN')).toBe(1);
    expect(person('Vladimir Putin', 'PUTIN, Vladimir')).toBe(1);
    expect(entity('Siemens AG', 'Siemens Aktiengesellschaft')).toBe(1);
    expect(person('Vladimir Putin', 'Putin Vladimir')).toBeLessThan(1);
    expect(person('Vladimir Putin', 'Vladimir Putin Vladimirovich')).toBeLessThan(1);
    expect(person('SergeiLavrov', 'Sergei Lavrov')).toBeLessThan(1);
  });

  it('scores typos, reorderings and transliterations of a name 0.8 or more', () => {
    expect(person('Vladmir Putin', 'Vladimir Putin')).toBeGreaterThanOrEqual(0.8);
    expect(person('Donlad Trump', 'Donald Trump')).toBeGreaterThanOrEqual(0.8);
    expect(person('Putin Vladimir', 'Vladimir Putin')).toBeGreaterThanOrEqual(0.8);
    expect(person('Muhammad bin Salman', 'Mohammed bin Salman')).toBeGreaterThanOrEqual(0.8);
    expect(person('Usama bin Ladin', 'Osama bin Laden')).toBeGreaterThanOrEqual(0.8);
    expect(person('Владимир Путин', 'Vladimir Putin')).toBeGreaterThanOrEqual(0.8);
    expect(person('محمد علي', 'Mohamed Ali')).toBeGreaterThanOrEqual(0.8);
    expect(person('Bill Gates', 'William Gates')).toBeGreaterThanOrEqual(0.8);
  });

  it('scores unrelated real names below the default threshold 0.5', () => {
    expect(person('Pol Pot', 'Paul Murphy')).toBeLessThan(0.5);
    expect(person('Barack Obama', 'Donald Trump')).toBeLessThan(0.5);
    expect(person('Michelle Michaela', 'Donald Duck')).toBeLessThan(0.5);
    expect(entity('Banco Nacional de Cuba', 'Rosneft Trading S.A.')).toBeLessThan(0.5);
  });

  it('gives a word that only resembles another (no anchor) nothing, whatever letters they share', () => {
    expect(person('Mohammed Ali', 'Mohammed Khan')).toBe(person('Mohammed Ali', 'Mohammed Xqzt'));
    expect(person('Roger Federer', 'Roger Federman')).toBeLessThan(0.5);
  });

  it('matches split and merged tokens', () => {
    expect(entity('ALQAIDA', 'AL QAIDA')).toBeGreaterThanOrEqual(0.8);
    expect(person('AlisherUsmanov', 'Alisher Usmanov')).toBeGreaterThanOrEqual(0.8);
  });

  it('scores an initial below the full given name but as a match', () => {
    const initial = person('J Smith', 'John Smith');
    expect(initial).toBeGreaterThanOrEqual(0.7);
    expect(initial).toBeLessThan(person('Jon Smith', 'John Smith'));
  });

  it('penalises query tokens missing from the listed name more than extra listed tokens', () => {
    expect(person('Ali Akbar Velayati', 'Ali Velayati')).toBeLessThan(
      person('Ali Velayati', 'Ali Akbar Velayati'),
    );
  });

  it('never scores names whose numbers differ as strong matches', () => {
    expect(entity('ALPHA 1', 'ALPHA 2')).toBeLessThan(0.8);
    expect(entity('Snow Storm 1', 'Snow Storm 2')).toBeLessThan(0.8);
    expect(entity('Victory', 'Victory 3')).toBeLessThan(0.8);
    expect(entity('ALPHA 1', 'ALPHA 1')).toBe(1);
  });

  it('lets legal forms weigh little: the same company with another legal form still matches', () => {
    expect(entity('Nanshan Group', 'Nanshan Group Co Ltd')).toBeGreaterThanOrEqual(0.8);
    expect(entity('Alpha Trading LLC', 'Alpha Trading Inc')).toBeGreaterThanOrEqual(0.8);
    expect(entity('Alpha LLC', 'Beta LLC')).toBeLessThan(0.5);
  });

  it('caps names that share no nearly identical token below 0.7', () => {
    const result = compareNames('Kowalski', 'Kawasaki', 'person');
    expect(result.score).toBeLessThan(0.7);
  });

  it('does not count as an anchor two words that share a key but are too unlike to be paired', () => {
    // SAHNA and SALEH share a double-deletion key (SAH) with similarity 0: the identical initials
    // alone would give 0.545; without an anchor the name stays under the default threshold.
    const result = compareNames('SALEH A B C D E F', 'SAHNA A B C D E F', 'person');
    expect(result.score).toBe(ANCHOR_FREE_CAP);
    expect(result.explanation.penalties).toContainEqual({
      reason: 'no token nearly identical in both names',
      cap: ANCHOR_FREE_CAP,
    });
    expect(person('SALEH A B C D E F', 'SALEH A B C D E F X')).toBeGreaterThan(0.5);
  });

  it('is deterministic', () => {
    expect(person('Abdul Rahman Yasin', 'YASIN, Abdul Rahman')).toBe(
      person('Abdul Rahman Yasin', 'YASIN, Abdul Rahman'),
    );
  });
});

describe('explanations', () => {
  it('name the matched name, the token pairs with their scores and the penalties', () => {
    const { explanation, score } = compareNames('Putin Vladimir', 'PUTIN, Vladimir', 'person');
    expect(explanation.matchedName).toBe('PUTIN, Vladimir');
    expect(explanation.score).toBeCloseTo(score, 4);
    expect(explanation.pairs).toEqual(
      expect.arrayContaining([
        { query: 'PUTIN', candidate: 'PUTIN', score: 1, how: 'identical' },
        { query: 'VLADIMIR', candidate: 'VLADIMIR', score: 1, how: 'identical' },
      ]),
    );
    expect(explanation.penalties.map((p) => p.reason)).toContain('token order differs');
  });

  it('show unmatched tokens, equivalences and merged tokens', () => {
    const e1 = compareNames('Bill Gates Jr', 'William Henry Gates', 'person').explanation;
    expect(e1.pairs).toContainEqual({ query: 'BILL', candidate: 'WILLIAM', score: 0.95, how: 'equivalent' });
    expect(e1.unmatchedName).toEqual(['HENRY']);
    const e2 = compareNames('SergeiLavrov', 'Sergei Lavrov', 'person').explanation;
    expect(e2.pairs[0]).toMatchObject({ query: 'SERGEILAVROV', candidate: 'SERGEI LAVROV', how: 'merged' });
  });

  it('name the method that compared: fuzzy for Latin spellings, transliterated only across scripts', () => {
    const method = (a: string, b: string) => compareNames(a, b, 'person').explanation.method;
    expect(method('Vladimir Putin', 'PUTIN, Vladimir Vladimirovich')).toBe('fuzzy');
    expect(method('Владимир Путин', 'PUTIN, Vladimir Vladimirovich')).toBe('transliterated');
    expect(method('Владимир Путин', 'Путин Владимир Владимирович')).toBe('original_script');
    expect(method('Vladimir Putin', 'PUTIN, Vladimir')).toBe('exact');
  });

  it('survive a JSON round trip unchanged', () => {
    const { explanation } = compareNames('ALPHA 1 LTD', 'ALPHA 2 LIMITED', 'entity');
    expect(JSON.parse(JSON.stringify(explanation))).toEqual(explanation);
    expect(explanation.penalties.map((p) => p.reason)).toContain('numbers differ');
  });
});
