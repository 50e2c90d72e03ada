import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { systemClock } from '../src/clock.js';
import { type MatchableEntity, NameIndex, SharedVocabulary } from '../src/matching/index.js';
import { MatchingThread, type ThreadIndex } from '../src/sources/list-matching/matching-thread.js';
import { OFFICIAL_LIST_IDS } from '../src/sources/lists/list-registry.js';
import { ListService } from '../src/sources/lists/list-service.js';
import { matchableEntity } from '../src/sources/matchable-entity.js';
import { openDatabase } from '../src/store/database.js';
import { createSchema } from '../test/support/postgres-schema.js';
import { benchListsDir } from './matching/list-names.js';
import { makeQueries } from './matching/queries.js';
import { cpuMsOfStat } from './support/proc-cpu.js';
import { startService } from './support/service.js';

/**
 * Official lists benchmark (`npm run bench:lists`, best under `node --expose-gc --import tsx`):
 * 1. parse and index every list of `LISTS_DIR` through the real refresh path, one
 *    round over every list (mirror read, parse in a worker thread, shrink guard, compressed
 *    snapshot written to the database, index build);
 * 2. RSS of this process with everything loaded and indexed;
 * 3. reload of every list from the stored snapshots by a fresh service (no file read, no parse),
 *    with and without the index build, `BENCH_RELOADS` times each (default 3);
 * 4. the cost of decoding a flagged entity from its JSON text, and per-list indexes against one
 *    combined index: build time and query latency;
 * 5. the real service in its own process (`src/main.ts` under tsx, or the built entry named by
 *    `BENCH_SERVICE_ENTRY`, e.g. `dist/main.js`; every list enabled): RSS once it has refreshed
 *    every list from the mirror, and again after a restart from its stored snapshots.
 * Indexes are built as the service builds them, in a matching thread (one per list service here);
 * CPU times and RSS are the process's, that thread included, and "V8 heap" is this thread's only.
 * Wall times suffer from other work on the machine; CPU times (user + system) suffer less.
 * With `DATABASE_URL` it runs on PostgreSQL, in schemas of its own that it drops; otherwise on the
 * embedded PGlite (in memory for 1-4, in a data folder for 5).
 */

const LISTS_DIR = benchListsDir('bench:lists');
const RELOADS = Number(process.env.BENCH_RELOADS ?? 3);
/** A built `main.js` to measure as production runs it (`npm run build` first); tsx otherwise. */
const SERVICE_ENTRY = process.env.BENCH_SERVICE_ENTRY;
const logger = pino({ level: 'silent' });
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

type Db = Awaited<ReturnType<typeof openDatabase>>;

/** Wall and CPU time (user + system, all threads of this process) of one piece of work. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const times = (t: { wallMs: number; cpuMs: number }) => `${seconds(t.wallMs)} (CPU ${seconds(t.cpuMs)})`;

/** A list service with its own matching thread (without one when `withIndex` is false). */
function service(db: Db, withIndex = true) {
  const matching = new MatchingThread();
  const lists = new ListService<ThreadIndex>({
    db: db.db,
    databaseKind: db.kind,
    clock: systemClock,
    logger,
    enabled: [...OFFICIAL_LIST_IDS],
    listsDir: LISTS_DIR,
    refreshIntervalMinutes: 0,
    downloadTimeoutMs: 60_000,
    maxDownloadBytes: 200 * 1024 * 1024,
    ...(withIndex ? { indexer: matching } : {}),
  });
  return {
    lists,
    close: async () => {
      await lists.close();
      await matching.close();
    },
  };
}

/** In this thread, as the matching thread builds the lists' indexes: all on one shared vocabulary. */
function sharedVocabularyBuilder(): (entities: Iterable<MatchableEntity>) => NameIndex {
  const vocabulary = new SharedVocabulary();
  return (entities) => NameIndex.build(entities, vocabulary);
}

function memoryLine(label: string, kind: string): string {
  gc();
  const memory = process.memoryUsage();
  return (
    `${label}: ${mb(memory.rss)} (V8 heap ${mb(memory.heapUsed)}, external ${mb(memory.external)}, ` +
    `array buffers ${mb(memory.arrayBuffers)}; database ${kind})`
  );
}

// One refresh round over every list, as a first start or an operator's `lists refresh` runs it.
async function parseAndIndex(db: Db) {
  const { lists, close } = service(db);
  // No start(): its first load would race this round for the refresh lock.
  const round = await timed(() => lists.refresh(undefined));
  for (const report of round.value) {
    console.log(
      `  ${report.listId.padEnd(9)} ${String(report.list.entity_count).padStart(6)} entities  ${report.outcome}`,
    );
  }
  console.log(`parse + index + store, all lists in one refresh round: ${times(round)}`);
  console.log(memoryLine('RSS with every list loaded and indexed', db.kind));
  await close();
}

async function reloadOnce(db: Db, withIndex: boolean) {
  const { lists, close } = service(db, withIndex);
  const run = await timed(async () => {
    lists.start();
    await lists.settled();
  });
  const view = lists.view();
  await close();
  return { ...run, view };
}

async function reload(db: Db) {
  const report = (label: string, runs: { wallMs: number; cpuMs: number }[]) =>
    console.log(
      `${label}: median ${seconds(median(runs.map((r) => r.wallMs)))} (CPU ${seconds(median(runs.map((r) => r.cpuMs)))}); ` +
        `runs ${runs.map(times).join(', ')}`,
    );
  // Only the last reload's view is kept, so each reload runs beside one other set of lists at most.
  const indexed: { wallMs: number; cpuMs: number }[] = [];
  let view: ReturnType<ListService<ThreadIndex>['view']> | undefined;
  for (let i = 0; i < RELOADS; i++) {
    view = undefined;
    gc();
    const run = await reloadOnce(db, true);
    indexed.push({ wallMs: run.wallMs, cpuMs: run.cpuMs });
    view = run.view;
  }
  report('reload from stored snapshots, with index build', indexed);
  const entitiesOnly: { wallMs: number; cpuMs: number }[] = [];
  for (let i = 0; i < RELOADS; i++) {
    const { wallMs, cpuMs } = await reloadOnce(db, false);
    entitiesOnly.push({ wallMs, cpuMs });
  }
  report('reload from stored snapshots, entities only (no index)', entitiesOnly);
  return view!;
}

/** What a flag costs on top of the search: decoding its entity from the list's text. */
function entityDecode(view: ReturnType<ListService<ThreadIndex>['view']>) {
  const lists = [...view.lists.values()];
  const bytes = lists.reduce((sum, list) => sum + list.entities.bytes, 0);
  const keys = lists.flatMap((list) =>
    [...list.entities].map((entity) => `${entity.source}:${entity.source_id}`),
  );
  const sample = Array.from({ length: 20_000 }, (_, i) => keys[(i * 7919) % keys.length]!);
  const started = performance.now();
  for (const key of sample) view.entity(key);
  const micros = ((performance.now() - started) * 1000) / sample.length;
  console.log(
    `entities held as JSON text: ${mb(bytes)} for ${keys.length} entities; decoding one for a flag: ${micros.toFixed(1)} us (mean of ${sample.length})`,
  );
}

function compareIndexLayouts(view: ReturnType<ListService<ThreadIndex>['view']>) {
  const perList = [...view.lists.values()].map((list) => [...list.entities].map(matchableEntity));
  const all = perList.flat();
  let started = performance.now();
  const combined = NameIndex.build(all);
  const combinedMs = performance.now() - started;
  started = performance.now();
  const separate = perList.map((entities) => NameIndex.build(entities));
  const separateMs = performance.now() - started;
  started = performance.now();
  const sharing = perList.map(sharedVocabularyBuilder());
  const sharingMs = performance.now() - started;
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
  const sharingQuery = time((q) => {
    for (const index of sharing) index.search(q, options);
  });
  console.log(
    `index layouts: one combined index builds in ${seconds(combinedMs)}, mean query ${combinedQuery.toFixed(3)} ms; ` +
      `${separate.length} per-list indexes build in ${seconds(separateMs)}, mean query (all lists) ${separateQuery.toFixed(3)} ms; ` +
      `the same on one shared vocabulary (as the service builds them) build in ${seconds(sharingMs)}, mean query ${sharingQuery.toFixed(3)} ms`,
  );
}

/** Resident memory and CPU seconds of another process (Linux `/proc`). */
function processFigures(pid: number): { rssBytes: number; cpuMs: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const cpuMs = cpuMsOfStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return { rssBytes: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) * 1024, cpuMs };
}

/** The service's RSS a few seconds after every enabled list is loaded (its GC has settled by then). */
async function serviceRun(label: string, env: Record<string, string>, dataDir: string) {
  const started = performance.now();
  const running = await startService(env, { dataDir, ...(SERVICE_ENTRY ? { entry: SERVICE_ENTRY } : {}) });
  try {
    for (;;) {
      const response = await fetch(`${running.url}/admin/v1/lists`, {
        headers: { authorization: `Bearer ${running.adminToken}` },
      });
      const body = (await response.json()) as { data: { state: string }[] };
      if (body.data.every((list) => list.state === 'fresh')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const readyMs = performance.now() - started;
    const samples: number[] = [];
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      samples.push(processFigures(running.pid).rssBytes);
    }
    const { cpuMs } = processFigures(running.pid);
    console.log(
      `service process (${SERVICE_ENTRY ?? 'src/main.ts under tsx'}), ${label}: RSS ${mb(median(samples.slice(-5)))} 5 s after every list is loaded ` +
        `(${samples.map((s) => (s / 1024 / 1024).toFixed(0)).join(' ')} MB over 5 s); lists loaded ` +
        `${seconds(readyMs)} after spawn, process CPU ${seconds(cpuMs)}`,
    );
  } finally {
    await running.stop();
  }
}

async function measureService() {
  const schema = process.env.DATABASE_URL
    ? await createSchema(process.env.DATABASE_URL, `bench_lists_svc_${Date.now().toString(36)}`)
    : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-bench-lists-'));
  const env = {
    LISTS_DIR,
    LISTS_ENABLED: 'all',
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  try {
    await serviceRun('first start (refreshes every list from the mirror)', env, dataDir);
    await serviceRun('restart (loads the stored snapshots)', env, dataDir);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await schema?.drop();
  }
}

if (!(globalThis as { gc?: unknown }).gc)
  console.log('note: run under node --expose-gc for stable RSS figures');
// On PostgreSQL the bench works in a schema of its own, dropped at the end.
const schema = process.env.DATABASE_URL
  ? await createSchema(process.env.DATABASE_URL, `bench_lists_${Date.now().toString(36)}`)
  : undefined;
const db = await openDatabase({ databaseUrl: schema?.url, poolSize: 4 });
try {
  await parseAndIndex(db);
  const view = await reload(db);
  entityDecode(view);
  compareIndexLayouts(view);
} finally {
  await db.close();
  await schema?.drop();
}
await measureService();
