/**
 * Matching cost of one screening, list by list (`node --expose-gc --import tsx
 * bench/matching/per-list.ts [queries]`): every enabled list of ../shared/data/lists loaded as the
 * service loads it (one index per list), then each query screened by every list's `ListSource` in
 * turn, as the screening orchestrator does. Prints mean, p50 and p99 per list and for the whole
 * screening. The figures include the fixed cost each search pays, which the per-corpus bench in
 * bench/matching.ts hides.
 */
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { ListSource } from '../../src/sources/lists/list-source.js';
import { loadListEntities } from './list-names.js';
import { makeQueries } from './queries.js';

const count = Number(process.argv[2] ?? 3000);
const config = loadConfig({
  ADMIN_TOKEN: 'x'.repeat(30),
  DATA_DIR: path.join(os.tmpdir(), `bench-per-list-${process.pid}`),
  LISTS_DIR: path.resolve(process.cwd(), '../shared/data/lists'),
});
const runtime = await createRuntime({ config, logger: pino({ level: 'silent' }), inMemoryDatabase: true });
await runtime.ctx.lists.settled();
const queries = makeQueries(loadListEntities(), count, 7);
const sources = runtime.ctx.lists.enabledLists().map((id) => new ListSource(id, runtime.ctx.lists));
const signal = new AbortController().signal;

async function pass(): Promise<{ perList: Map<string, number[]>; screenings: number[] }> {
  const perList = new Map<string, number[]>(sources.map((s) => [s.id, []]));
  const screenings: number[] = [];
  for (const entity of queries) {
    const started = performance.now();
    for (const source of sources) {
      const t = performance.now();
      await source.screen({ entity, type: 'person', threshold: 0.5, limit: 10 }, signal);
      perList.get(source.id)!.push(performance.now() - t);
    }
    screenings.push(performance.now() - started);
  }
  return { perList, screenings };
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return `mean ${mean.toFixed(3)} ms, p50 ${at(0.5).toFixed(3)} ms, p99 ${at(0.99).toFixed(3)} ms`;
}

await pass(); // warm-up: the first pass compiles the hot paths
const { perList, screenings } = await pass();
for (const [id, times] of perList) console.log(`${id.padEnd(10)} ${summary(times)}`);
console.log(`screening  ${summary(screenings)} (${count} queries, every list)`);
await runtime.close();
