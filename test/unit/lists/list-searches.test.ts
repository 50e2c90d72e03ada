import { beforeAll, describe, expect, it } from 'vitest';
import { NameIndex, type SearchOptions } from '../../../src/matching/index.js';
import { ListSearches } from '../../../src/sources/list-matching/list-searches.js';
import type { MatchingCommand } from '../../../src/sources/list-matching/matching-thread.js';
import { parseVersion } from '../../../src/sources/lists/parsed-version.js';
import { chunkNames } from '../../../src/sources/lists/snapshot-chunks.js';
import { mirrorBytes, parserFor } from './mirror.js';

type Search = Extract<MatchingCommand, { op: 'search' }>;

async function entitiesOf(id: string) {
  const parser = parserFor(id);
  const files = new Map(parser.files.map((spec) => [spec.name, mirrorBytes(spec.name)] as const));
  return (await parseVersion(parser, files, {})).chunks.flatMap(chunkNames);
}

const PERSON: SearchOptions = { type: 'person', threshold: 0.5, limitPerSource: 10 };
const QUERIES = [
  'Saddam Hussein Al-Tikriti',
  'Sadam Husein',
  'Tikriti Saddam',
  'John Smith',
  'Аль-Каида',
  'AL QAIDA',
];
const LISTS = ['un_sc', 'uk_fcdo', 'us_csl'];

describe('the searches of the list indexes in the matching thread', () => {
  let entities: Awaited<ReturnType<typeof entitiesOf>>[];
  beforeAll(async () => {
    entities = await Promise.all(LISTS.map(entitiesOf));
  });

  /** Indexes 1, 2, 3 for the three lists, and the same lists' indexes on a vocabulary of their own. */
  function setUp(searches: ListSearches) {
    entities.forEach((list, k) => {
      searches.add(k + 1, NameIndex.build(list, searches.shared));
    });
    return entities.map((list) => NameIndex.build(list));
  }

  let nextId = 0;
  const search = (index: number, query: string, options = PERSON): Search => ({
    op: 'search',
    id: nextId++,
    index,
    query,
    options,
  });

  it('answers the searches of one query for every list from one combined index, each exactly as its list alone', async () => {
    const searches = new ListSearches();
    const alone = setUp(searches);
    await searches.combine();
    expect([1, 2, 3].map((n) => searches.covered(n))).toEqual([true, true, true]);
    for (const query of QUERIES) {
      for (const type of ['person', 'entity'] as const) {
        const options = { ...PERSON, type };
        // As a screening asks: every list at once, the same search twice (two screenings alike).
        const commands = [1, 2, 3].map((n) => search(n, query, options));
        const answers = searches.answer([...commands, search(1, query, options)]);
        const expected = alone.map((index) => index.search(query, options));
        expect(answers.map((a) => ('matches' in a ? a.matches : a))).toEqual([...expected, expected[0]]);
        expect(answers.map((a) => a.id)).toEqual([...commands.map((c) => c.id), nextId - 1]);
        // A screening limited to two of the lists: the combined index searched for those two.
        const two = searches.answer([search(1, query, options), search(3, query, options)]);
        expect(two.map((a) => ('matches' in a ? a.matches : a))).toEqual([expected[0], expected[2]]);
      }
    }
    // Two screenings alike in one message: equal answers, but no two share their objects.
    const saddam = searches.answer([
      search(1, 'Saddam Hussein Al-Tikriti'),
      search(2, 'Saddam Hussein Al-Tikriti'),
      search(1, 'Saddam Hussein Al-Tikriti'),
    ]);
    const first = 'matches' in saddam[0]! ? saddam[0].matches.get('un_sc') : undefined;
    const again = 'matches' in saddam[2]! ? saddam[2].matches.get('un_sc') : undefined;
    expect(first?.[0]?.score).toBe(1);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });

  it('answers for a version being replaced from its own index, and never for a released one', async () => {
    const searches = new ListSearches();
    const alone = setUp(searches);
    searches.add(4, NameIndex.build(entities[0]!, searches.shared));
    await searches.combine();
    expect([1, 2, 3, 4].map((n) => searches.covered(n))).toEqual([false, true, true, true]);
    const [older, newer, other2] = searches.answer([
      search(1, 'Sadam Husein'),
      search(4, 'Sadam Husein'),
      search(2, 'Sadam Husein'),
    ]);
    const expected = alone[0]!.search('Sadam Husein', PERSON);
    expect(older).toMatchObject({ matches: expected });
    expect(newer).toMatchObject({ matches: expected });
    expect(other2).toMatchObject({ matches: alone[1]!.search('Sadam Husein', PERSON) });
    searches.release(4);
    // The combined index still answers for the versions in service it holds, never for 4.
    expect(searches.covered(2)).toBe(true);
    const [released, other] = searches.answer([search(4, 'Sadam Husein'), search(2, 'Sadam Husein')]);
    expect(released).toMatchObject({ error: expect.stringMatching(/no longer in service/) });
    expect(other).toMatchObject({ matches: alone[1]!.search('Sadam Husein', PERSON) });
    // Combined again: version 1 from its own index, 2 and 3 from the combined index.
    await searches.combine();
    expect([1, 2, 3].map((n) => searches.covered(n))).toEqual([true, true, true]);
    for (const query of QUERIES) {
      const answers = searches.answer([1, 2, 3].map((n) => search(n, query)));
      expect(answers.map((a) => ('matches' in a ? a.matches : a))).toEqual(
        alone.map((index) => index.search(query, PERSON)),
      );
    }
  });

  it("lets go of a version's own index once combined, and combines its update from the combined index", async () => {
    const searches = new ListSearches();
    const alone = setUp(searches);
    const own = (n: number) =>
      (searches as unknown as { versions: Map<number, { index: NameIndex }> }).versions.get(n)!.index;
    const builtFor1 = own(1);
    await searches.combine();
    const combined = own(1);
    expect(combined).not.toBe(builtFor1);
    expect([own(2), own(3)]).toEqual([combined, combined]);
    // An update of the first list: its new version is combined with the others, taken from the
    // combined index; the version it replaces is answered by the former combined index until released.
    searches.add(4, NameIndex.build(entities[0]!, searches.shared));
    await searches.combine();
    expect(own(4)).toBe(own(2));
    expect(own(1)).toBe(combined);
    expect(own(2)).not.toBe(combined);
    for (const query of QUERIES) {
      const answers = searches.answer([1, 2, 3, 4].map((n) => search(n, query)));
      expect(answers.map((a) => ('matches' in a ? a.matches : a))).toEqual(
        [...alone, alone[0]!].map((index) => index.search(query, PERSON)),
      );
    }
    searches.release(1);
    // Alone, and with filters by list and kind: as each list's own index answers.
    for (const options of [
      PERSON,
      { ...PERSON, sources: ['uk_fcdo'] },
      { ...PERSON, sources: ['un_sc', 'us_csl'] },
      { ...PERSON, type: 'entity' as const, kinds: ['organization' as const] },
    ]) {
      for (const query of QUERIES) {
        const answers = [2, 3, 4].map((n) => searches.answer([search(n, query, options)])[0]!);
        expect(answers.map((a) => ('matches' in a ? a.matches : a))).toEqual(
          [alone[1]!, alone[2]!, alone[0]!].map((index) => index.search(query, options)),
        );
      }
    }
  });

  it('drops a combination a list was released during, and answers from the lists alone meanwhile', async () => {
    const searches = new ListSearches();
    const alone = setUp(searches);
    let answered: ReturnType<ListSearches['answer']> = [];
    let paused = false;
    await searches.combine(async () => {
      if (paused) return;
      paused = true;
      // Between two steps of the combination: a search, then a release.
      answered = searches.answer([search(1, 'Sadam Husein'), search(2, 'Sadam Husein')]);
      searches.release(3);
    });
    expect(paused).toBe(true);
    expect(answered.map((a) => ('matches' in a ? a.matches : a))).toEqual(
      alone.slice(0, 2).map((index) => index.search('Sadam Husein', PERSON)),
    );
    expect([1, 2].map((n) => searches.covered(n))).toEqual([false, false]);
    await searches.combine();
    expect([1, 2].map((n) => searches.covered(n))).toEqual([true, true]);
  });

  it('combines the smallest lists that fit within its limit together, and leaves the others alone', async () => {
    const sizes = entities.map((list) => NameIndex.build(list).size.names);
    const [smallest, second, largest] = [0, 1, 2].sort((a, b) => sizes[a]! - sizes[b]!);
    const searches = new ListSearches(sizes[smallest!]! + sizes[second!]!);
    const alone = setUp(searches);
    await searches.combine();
    expect([smallest, second, largest].map((k) => searches.covered(k! + 1))).toEqual([true, true, false]);
    const answers = searches.answer([1, 2, 3].map((n) => search(n, 'Tikriti Saddam')));
    expect(answers.map((a) => ('matches' in a ? a.matches : a))).toEqual(
      alone.map((index) => index.search('Tikriti Saddam', PERSON)),
    );
  });

  it('leaves lists with more names than its limit to their own indexes', async () => {
    const smallest = Math.min(...entities.map((list) => NameIndex.build(list).size.names));
    const searches = new ListSearches(smallest - 1);
    const alone = setUp(searches);
    await searches.combine();
    expect([1, 2, 3].map((n) => searches.covered(n))).toEqual([false, false, false]);
    const answers = searches.answer([1, 2, 3].map((n) => search(n, 'Tikriti Saddam')));
    expect(answers.map((a) => ('matches' in a ? a.matches : a))).toEqual(
      alone.map((index) => index.search('Tikriti Saddam', PERSON)),
    );
  });
});
