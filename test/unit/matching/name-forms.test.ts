import { describe, expect, it } from 'vitest';
import { WEAK_ALIAS_FACTOR } from '../../../src/matching/entity-score.js';
import { groupNameForms } from '../../../src/matching/name-forms.js';
import { NameIndex } from '../../../src/matching/name-index.js';
import { prepareName } from '../../../src/matching/prepare.js';
import { SharedVocabulary } from '../../../src/matching/shared-vocabulary.js';
import type { EntityMatch, MatchableEntity, SearchOptions } from '../../../src/matching/types.js';

/** One name, `SERGEI LAVROV`, listed eight times: by two sources, as four kinds, strong and weak. */
const entities: MatchableEntity[] = [
  { key: 'a:1', source: 'a', kind: 'person', names: [{ full: 'LAVROV, Sergei', type: 'primary' }] },
  { key: 'a:2', source: 'a', kind: 'vessel', names: [{ full: 'SERGEI LAVROV', type: 'primary' }] },
  {
    key: 'b:1',
    source: 'b',
    kind: 'person',
    names: [
      { full: 'Sergei Viktorovich Lavrov', type: 'primary' },
      { full: 'Sergei Lavrov', type: 'weak_aka' },
    ],
  },
  { key: 'b:2', source: 'b', kind: 'person', names: [{ full: 'Sergei Lavrov', type: 'weak_aka' }] },
  {
    key: 'b:3',
    source: 'b',
    kind: 'person',
    names: [
      { full: 'Sergei Lavrov', type: 'weak_aka' },
      { full: 'Сергей Лавров', type: 'original_script' },
    ],
  },
  { key: 'c:1', source: 'c', kind: 'organization', names: [{ full: 'SERGEI LAVROV LLC', type: 'primary' }] },
];
const index = NameIndex.build(entities);
// An `entity` query matches every kind, so that names of one form under four kinds are all found.
const options: SearchOptions = { type: 'entity', threshold: 0.5, limitPerSource: 10 };

const scores = (result: Map<string, EntityMatch[]>) =>
  Object.fromEntries([...result.values()].flat().map((m) => [m.key, m.score]));

describe('names of one prepared form', () => {
  it('are grouped by their tokens and original-script tokens, nothing less', () => {
    const shared = new SharedVocabulary();
    const prepared = [
      'Sergei Lavrov',
      'LAVROV SERGEI',
      'Sergei Lavrov',
      'Сергей Лавров',
      'Sergei Lavrova',
    ].map((full) => prepareName(full, 'entity', shared.vocabulary.factory, shared.originals.factory));
    const forms = groupNameForms(prepared);
    // The Cyrillic spelling transliterates to the same tokens but keeps its original ones.
    expect([...forms.lead]).toEqual([0, 1, 0, 3, 4]);
    expect([...forms.names.subarray(forms.start[0]!, forms.start[1]!)]).toEqual([0, 2]);
    expect(forms.start[3]! - forms.start[2]!).toBe(0);
  });

  it('are each found for their own entity, source and name type', () => {
    const result = index.search('Sergei Lavrov', options);
    const found = scores(result);
    expect(Object.keys(found).sort()).toEqual(['a:1', 'a:2', 'b:1', 'b:2', 'b:3', 'c:1']);
    // An exact match on a weak alias still scores 1.0; the typo below is scaled on weak aliases only.
    expect(found['b:2']).toBe(1);
    const typo = scores(index.search('Sergei Lavorv', options));
    expect(typo['a:2']).toBeGreaterThan(0.8);
    expect(typo['b:2']).toBeCloseTo(typo['a:2']! * WEAK_ALIAS_FACTOR, 10);
    // b:3's Cyrillic spelling, another form, is not a weak alias.
    expect(typo['b:3']).toBeGreaterThan(typo['b:2']!);
  });

  it('are not lost when the first of them is a weak alias and another is not', () => {
    // The weak alias is listed first, so it leads the form; the bounds must still hold for the strong name.
    const weakFirst = NameIndex.build([
      { key: 'd:1', source: 'd', kind: 'person', names: [{ full: 'Ivan Petrov', type: 'weak_aka' }] },
      { key: 'd:2', source: 'd', kind: 'person', names: [{ full: 'Ivan Petrov', type: 'primary' }] },
    ]);
    const strong = scores(weakFirst.search('Ivan Petorv', options))['d:2']!;
    expect(strong).toBeGreaterThan(0.8);
    const atItsScore = scores(weakFirst.search('Ivan Petorv', { ...options, threshold: strong }));
    expect(atItsScore).toEqual({ 'd:2': strong });
  });

  it('pass the source and kind filters name by name', () => {
    expect(Object.keys(scores(index.search('Sergei Lavrov', { ...options, kinds: ['vessel'] })))).toEqual([
      'a:2',
    ]);
    expect(Object.keys(scores(index.search('Sergei Lavrov', { ...options, sources: ['b'] }))).sort()).toEqual(
      ['b:1', 'b:2', 'b:3'],
    );
  });

  it('each count toward their own source limit', () => {
    const two = index.search('Sergei Lavrov', { ...options, limitPerSource: 2 });
    expect(two.get('a')!.map((m) => m.key)).toEqual(['a:1', 'a:2']);
    // Three exact matches in b (1.0 each): ties go by key.
    expect(two.get('b')!.map((m) => [m.key, m.score])).toEqual([
      ['b:1', 1],
      ['b:2', 1],
    ]);
  });
});
