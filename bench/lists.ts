import path from 'node:path';
import pino from 'pino';
import { systemClock } from '../src/clock.js';
import { KNOWN_LIST_IDS } from '../src/config.js';
import { NameIndex } from '../src/matching/index.js';
import { ListService } from '../src/sources/lists/list-service.js';
import { matchableEntity } from '../src/sources/lists/loaded-lists.js';
import { openDatabase } from '../src/store/database.js';
import { createSchema } from '../test/support/postgres-schema.js';
import { makeQueries } from './matching/queries.js';

/**
 * Official lists benchmark (`npm run bench:lists`, best under `node --expose-gc --import tsx`):
 * 1. parse and index every list of `../shared/data/lists` through the real refresh path (mirror
 *    read, parse, shrink guard, compressed snapshot written to an in-memory PGlite, index build);
 * 2. RSS of the process with everything loaded and indexed;
 * 3. reload of every list from the stored snapshots by a second service (no file read, no parse);
 * 4. per-list indexes against one combined index: build time and query latency.
 */

const LISTS_DIR = path.resolve(process.cwd(), '../shared/data/lists');
const logger = pino({ level: 'silent' });
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function service(db: Awaited<ReturnType<typeof openDatabase>>, withIndex = true) {
  return new ListService<NameIndex>({
    db: db.db,
    databaseKind: db.kind,
    clock: systemClock,
    logger,
    enabled: [...KNOWN_LIST_IDS],
    listsDir: LISTS_DIR,
    refreshIntervalMinutes: 0,
    downloadTimeoutMs: 60_000,
    maxDownloadBytes: 200 * 1024 * 1024,
    ...(withIndex ? { buildIndex: (entities) => NameIndex.build(entities) } : {}),
  });
}

async function parseAndIndex(db: Awaited<ReturnType<typeof openDatabase>>) {
  const lists = service(db);
  await lists.start();
  const started = performance.now();
  for (const id of KNOWN_LIST_IDS) {
    const t = performance.now();
    const [report] = await lists.refresh(id);
    console.log(
      `  ${id.padEnd(9)} ${String(report?.list.entity_count).padStart(6)} entities  ${seconds(performance.now() - t)}  ${report?.outcome}`,
    );
  }
  const total = performance.now() - started;
  console.log(`parse + index + store, all lists: ${seconds(total)}`);
  gc();
  const memory = process.memoryUsage();
  console.log(
    `RSS with every list loaded and indexed: ${mb(memory.rss)} (V8 heap ${mb(memory.heapUsed)}, ` +
      `external ${mb(memory.external)}, array buffers ${mb(memory.arrayBuffers)}; database ${db.kind})`,
  );
  return lists;
}

async function reload(db: Awaited<ReturnType<typeof openDatabase>>) {
  const withIndex = service(db);
  let started = performance.now();
  await withIndex.start();
  console.log(`reload from stored snapshots, with index build: ${seconds(performance.now() - started)}`);
  gc();
  console.log(`RSS after the reload (first service closed): ${mb(process.memoryUsage().rss)}`);
  const view = withIndex.view();
  await withIndex.close();
  const withoutIndex = service(db, false);
  started = performance.now();
  await withoutIndex.start();
  console.log(
    `reload from stored snapshots, entities only (no index): ${seconds(performance.now() - started)}`,
  );
  await withoutIndex.close();
  return view;
}

function compareIndexLayouts(view: ReturnType<ListService<NameIndex>['view']>) {
  const perList = [...view.lists.values()];
  const all = perList.flatMap((list) => list.entities.map(matchableEntity));
  let started = performance.now();
  const combined = NameIndex.build(all);
  const combinedMs = performance.now() - started;
  started = performance.now();
  const separate = perList.map((list) => NameIndex.build(list.entities.map(matchableEntity)));
  const separateMs = performance.now() - started;
  const queries = makeQueries(all, 2_000, 2024);
  const options = { type: 'person' as const, threshold: 0.5, limitPerSource: 10 };
  const time = (search: (q: string) => void) => {
    for (const q of queries.slice(0, 200)) search(q);
    const t = performance.now();
    for (const q of queries) search(q);
    return (performance.now() - t) / queries.length;
  };
  const combinedQuery = time((q) => combined.search(q, options));
  const separateQuery = time((q) => {
    for (const index of separate) index.search(q, options);
  });
  console.log(
    `index layouts: one combined index builds in ${seconds(combinedMs)}, mean query ${combinedQuery.toFixed(3)} ms; ` +
      `${separate.length} per-list indexes build in ${seconds(separateMs)}, mean query (all lists) ${separateQuery.toFixed(3)} ms`,
  );
}

if (!(globalThis as { gc?: unknown }).gc)
  console.log('note: run under node --expose-gc for stable RSS figures');
// On PostgreSQL the bench works in a schema of its own, dropped at the end.
const schema = process.env.DATABASE_URL
  ? await createSchema(process.env.DATABASE_URL, `bench_lists_${Date.now().toString(36)}`)
  : undefined;
const db = await openDatabase({ databaseUrl: schema?.url, poolSize: 4 });
try {
  const first = await parseAndIndex(db);
  await first.close();
  gc();
  const view = await reload(db);
  compareIndexLayouts(view);
} finally {
  await db.close();
  await schema?.drop();
}
