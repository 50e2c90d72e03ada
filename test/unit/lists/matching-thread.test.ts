import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inBackground } from '../../../src/background-work.js';
import { NameIndex, type SearchOptions, SharedVocabulary } from '../../../src/matching/index.js';
import {
  BACKGROUND_QUERIES_PER_STEP,
  MatchingThread,
} from '../../../src/sources/list-matching/matching-thread.js';
import { parseVersion } from '../../../src/sources/lists/parsed-version.js';
import { chunkNames, type SnapshotChunk } from '../../../src/sources/lists/snapshot-chunks.js';
import { mirrorBytes, parserFor } from './mirror.js';

async function chunksOf(id: string): Promise<SnapshotChunk[]> {
  const parser = parserFor(id);
  const files = new Map(parser.files.map((spec) => [spec.name, mirrorBytes(spec.name)] as const));
  return (await parseVersion(parser, files, {})).chunks;
}

const PERSON: SearchOptions = { type: 'person', threshold: 0.5, limitPerSource: 10 };
const QUERIES = ['Saddam Hussein Al-Tikriti', 'Sadam Husein', 'Tikriti Saddam', 'John Smith', 'Аль-Каида'];

describe('list indexes in the matching thread', () => {
  const thread = new MatchingThread();
  let un: SnapshotChunk[];
  let uk: SnapshotChunk[];
  let csl: SnapshotChunk[];
  beforeAll(async () => {
    [un, uk, csl] = await Promise.all([chunksOf('un_sc'), chunksOf('uk_fcdo'), chunksOf('us_csl')]);
  });
  afterAll(() => thread.close());

  it('answers every search exactly as the same indexes in this thread, explanations included', async () => {
    const shared = new SharedVocabulary();
    const local = [un, uk].map((chunks) => NameIndex.build(chunks.flatMap(chunkNames), shared));
    const remote = await Promise.all([thread.build(un), thread.build(uk)]);
    expect(remote.map((index) => index.size)).toEqual(local.map((index) => index.size));
    // Right after the builds, and again past the pause after which the thread combines the two
    // lists (the combined answers themselves are held to each list's in list-searches.test.ts).
    for (const pause of [0, 600]) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      for (const query of QUERIES) {
        for (const type of ['person', 'entity'] as const) {
          const options = { ...PERSON, type };
          // Both lists' searches are asked in one turn, as a screening asks them.
          const answers = await Promise.all(remote.map((index) => index.search(query, options)));
          expect(answers).toEqual(local.map((index) => index.search(query, options)));
        }
      }
    }
    const saddam = await remote[0]!.search('Saddam Hussein Al-Tikriti', PERSON);
    expect(saddam.get('un_sc')?.[0]?.score).toBe(1);
  });

  it('answers the searches of the versions in service while it builds a new one', async () => {
    const inService = await thread.build(uk);
    const order: string[] = [];
    const building = thread.build(csl).then(() => order.push('built us_csl'));
    await new Promise((resolve) => setImmediate(resolve)); // the build has started
    await inService.search('Sadam Husein', PERSON).then(() => order.push('searched uk_fcdo'));
    await building;
    expect(order).toEqual(['searched uk_fcdo', 'built us_csl']);
  });

  it('a released version is no longer searched, and the versions in service still are', async () => {
    const [older, newer] = await Promise.all([thread.build(un), thread.build(un)]);
    const searchOfOlder = older!.search('Sadam Husein', PERSON);
    thread.release(older!);
    // Asked before the release, so answered.
    expect((await searchOfOlder).get('un_sc')?.length).toBeGreaterThan(0);
    await expect(older!.search('Sadam Husein', PERSON)).rejects.toThrow(/no longer in service/);
    expect((await newer!.search('Sadam Husein', PERSON)).get('un_sc')?.length).toBeGreaterThan(0);
  });

  it("answers a request's search before the background searches asked ahead of it, all but a few", async () => {
    const [index] = await Promise.all([thread.build(un)]);
    const order: string[] = [];
    // A batch's items: forty distinct queries, asked before the request's.
    const background = Array.from({ length: 40 }, (_, i) =>
      inBackground(() => index!.search(`${QUERIES[i % QUERIES.length]} ${i}`, PERSON)).then(() =>
        order.push('background'),
      ),
    );
    const request = index!.search('Sadam Husein', PERSON).then((answer) => {
      order.push('request');
      return answer;
    });
    expect((await request).get('un_sc')?.length).toBeGreaterThan(0);
    await Promise.all(background);
    expect(order.filter((o) => o === 'background')).toHaveLength(40);
    expect(order.indexOf('request')).toBeLessThanOrEqual(BACKGROUND_QUERIES_PER_STEP);
  });

  it('answers background searches asked before a release, and the release still applies', async () => {
    const [older, newer] = await Promise.all([thread.build(un), thread.build(un)]);
    const asked = Array.from({ length: 3 * BACKGROUND_QUERIES_PER_STEP }, (_, i) =>
      inBackground(() => older!.search(`Sadam Husein ${i}`, PERSON)),
    );
    thread.release(older!);
    for (const answer of await Promise.all(asked)) expect(answer.get('un_sc')?.length).toBeGreaterThan(0);
    await expect(inBackground(() => older!.search('Sadam Husein', PERSON))).rejects.toThrow(
      /no longer in service/,
    );
    expect((await newer!.search('Sadam Husein', PERSON)).get('un_sc')?.length).toBeGreaterThan(0);
  });

  it('after the thread stops, what was in flight fails and the next search is answered by a new thread holding the same indexes', async () => {
    const index = await thread.build(uk);
    const before = await index.search('Tikriti Saddam', PERSON);
    // A build of a larger list takes about a second: still in flight at the restart.
    const inFlight = expect(thread.build(csl)).rejects.toThrow(/restarted/);
    await new Promise((resolve) => setImmediate(resolve)); // the build is sent
    await thread.restart();
    await inFlight;
    expect(await index.search('Tikriti Saddam', PERSON)).toEqual(before);
  });

  it('once closed, builds and searches fail instead of starting the thread again', async () => {
    const closing = new MatchingThread();
    const index = await closing.build(uk);
    await closing.close();
    await expect(index.search('Sadam Husein', PERSON)).rejects.toThrow(/stopped/);
    await expect(closing.build(uk)).rejects.toThrow(/stopped/);
  });
});
