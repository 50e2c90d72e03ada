// Per-list screening cost: every enabled list's ListSource.screen per query, as a screening does.
// Usage (from a repo root): node --expose-gc --import tsx /tmp/perf/per-list.ts [queries]
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { ListSource } from '../../src/sources/lists/list-source.js';
import { loadListEntities } from './list-names.js';
import { makeQueries } from './queries.js';

const root = process.cwd();
const config = loadConfig({
  ADMIN_TOKEN: 'x'.repeat(30),
  DATA_DIR: `/tmp/perf/data-${process.pid}`,
  LISTS_DIR: path.resolve(root, '../shared/data/lists'),
});
const runtime = await createRuntime({ config, logger: pino({ level: 'silent' }), inMemoryDatabase: true });
await runtime.ctx.lists.settled();
const n = Number(process.argv[2] ?? 3000);
const queries: string[] = makeQueries(loadListEntities(), n, 7);
const ids: string[] = [...runtime.ctx.lists.enabledLists()];
const sources = ids.map((id) => new ListSource(id, runtime.ctx.lists));
const signal = new AbortController().signal;
async function pass(record: boolean) {
  const per = new Map<string, number[]>();
  const totals: number[] = [];
  let flags = 0;
  for (const q of queries) {
    const t0 = performance.now();
    for (const s of sources) {
      const t = performance.now();
      const f = await s.screen({ entity: q, type: 'person', threshold: 0.5, limit: 10 }, signal);
      flags += f.length;
      if (record) {
        const a = per.get(s.id) ?? [];
        a.push(performance.now() - t);
        per.set(s.id, a);
      }
    }
    if (record) totals.push(performance.now() - t0);
  }
  return { per, totals, flags };
}
await pass(false);
const { per, totals, flags } = await pass(true);
const pct = (a: number[], p: number) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
for (const [id, a] of per)
  console.log(
    `${id.padEnd(10)} mean ${mean(a).toFixed(3)} ms  p50 ${pct(a, 50).toFixed(3)}  p99 ${pct(a, 99).toFixed(3)}`,
  );
console.log(
  `all lists  mean ${mean(totals).toFixed(3)} ms  p50 ${pct(totals, 50).toFixed(3)}  p99 ${pct(totals, 99).toFixed(3)}  (${n} queries, ${(flags / n).toFixed(1)} flags/query)`,
);
await runtime.close();
