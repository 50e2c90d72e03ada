/**
 * Matching cost of one screening, list by list (`node --expose-gc --import tsx
 * bench/matching/per-list.ts [queries]`): every enabled list of `LISTS_DIR` loaded by the
 * service's runtime. Two measurements per query:
 * 1. in this thread, one index per list on one shared vocabulary, as the matching thread holds
 *    them: each list searched in turn. Mean, p50 and p99 per list and for the whole screening,
 *    with the fixed cost each search pays, which the per-corpus bench in bench/matching.ts hides;
 * 2. as a screening runs them: every list's `ListSource` at once, searched by the matching thread
 *    (one message each way) and the flags built here: what the thread adds to the matching.
 */
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { NameIndex, SharedVocabulary } from '../../src/matching/index.js';
import { createRuntime } from '../../src/runtime.js';
import { ListSource } from '../../src/sources/lists/list-source.js';
import { matchableEntity } from '../../src/sources/matchable-entity.js';
import { benchListsDir, loadListEntities } from './list-names.js';
import { makeQueries } from './queries.js';

const LISTS_DIR = benchListsDir('bench/matching/per-list');
const count = Number(process.argv[2] ?? 3000);
const config = loadConfig({
  ADMIN_TOKEN: 'x'.repeat(30),
  DATA_DIR: path.join(os.tmpdir(), `bench-per-list-${process.pid}`),
  LISTS_DIR,
});
const runtime = await createRuntime({ config, logger: pino({ level: 'silent' }), inMemoryDatabase: true });
await runtime.ctx.lists.settled();
const queries = makeQueries(loadListEntities(LISTS_DIR), count, 7);
const options = { type: 'person' as const, threshold: 0.5, limitPerSource: 10 };
const shared = new SharedVocabulary();
const indexes = [...runtime.ctx.lists.view().lists].map(([id, list]) => ({
  id,
  index: NameIndex.build([...list.entities].map(matchableEntity), shared),
}));
const sources = runtime.ctx.lists.enabledLists().map((id) => new ListSource(id, runtime.ctx.lists));
const signal = new AbortController().signal;

function inThisThread(): { perList: Map<string, number[]>; screenings: number[] } {
  const perList = new Map<string, number[]>(indexes.map(({ id }) => [id, []]));
  const screenings: number[] = [];
  for (const entity of queries) {
    const started = performance.now();
    for (const { id, index } of indexes) {
      const t = performance.now();
      index.search(entity, options);
      perList.get(id)!.push(performance.now() - t);
    }
    screenings.push(performance.now() - started);
  }
  return { perList, screenings };
}

async function throughTheThread(): Promise<number[]> {
  const screenings: number[] = [];
  for (const entity of queries) {
    const started = performance.now();
    await Promise.all(
      sources.map((source) =>
        source.screen(
          { entity, type: options.type, threshold: options.threshold, limit: options.limitPerSource },
          signal,
        ),
      ),
    );
    screenings.push(performance.now() - started);
  }
  return screenings;
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return `mean ${mean.toFixed(3)} ms, p50 ${at(0.5).toFixed(3)} ms, p99 ${at(0.99).toFixed(3)} ms`;
}

inThisThread(); // warm-up: the first pass compiles the hot paths
const { perList, screenings } = inThisThread();
for (const [id, times] of perList) console.log(`${id.padEnd(10)} ${summary(times)}`);
console.log(`screening  ${summary(screenings)} (${count} queries, every list, in this thread)`);
await throughTheThread();
console.log(
  `screening  ${summary(await throughTheThread())} (every list's source at once through the matching thread, flags built)`,
);
await runtime.close();
