/**
 * Where a live screening's CPU goes (issue 5), for comparing builds: the service in its own
 * process with every list of `LISTS_DIR` loaded, distinct live screenings evenly paced at
 * a rate it sustains, and per screening: the CPU of its main thread, of the matching thread (the
 * busiest other thread) and of every other thread (V8's garbage-collection and compiler helpers,
 * libuv's pool), with the main thread's garbage collections read from V8's own trace. Then the
 * whole machine's budget: the CPU that PostgreSQL, Redis and the load generator spent per screening
 * besides, their sum, and the throughput that sum allows on this machine's cores (its ceiling,
 * whatever the latency), against the busy time /proc/stat counted. It prints its figures and writes
 * nothing (docs/benchmarks.md keeps the current ones by hand). On an otherwise idle
 * machine: every postgres and redis-server process counts.
 *
 *   npm run build && npm run bench:screening-cost
 *   ENTRIES=dist/main.js,../before/dist/main.js ROUNDS=2 npm run bench:screening-cost
 *
 * ENTRIES: built entries to measure, in turn, ROUNDS times (this machine's speed drifts from minute
 * to minute, so two builds are compared alternating, never one after the other), each optionally
 * after settings of its own (`MALLOC_MMAP_THRESHOLD_=16384 dist/main.js`); RATE (300/s) and
 * SECONDS (10) of each run, after 3 s of warm-up; QUERIES=repeated for cache hits (below).
 * PostgreSQL + Redis when DATABASE_URL and REDIS_URL are set (a schema of its own, dropped at the
 * end), else the embedded default.
 */
import os from 'node:os';
import { createSchema } from '../test/support/postgres-schema.js';
import { benchListsDir } from './matching/list-names.js';
import { summariseMainIsolateGc } from './support/gc-trace.js';
import { pacedLoad } from './support/paced-load.js';
import { cpuBetween, machineBusyMs, processesCpuMs, threadCpuMs } from './support/proc-cpu.js';
import { distinctScreeningBodies } from './support/screening-bodies.js';
import { entryWithSettings, liftAccountLimits, startService, waitUntilHealthy } from './support/service.js';

const ENTRIES = (process.env.ENTRIES ?? 'dist/main.js').split(',');
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const RATE = Number(process.env.RATE ?? 300);
const SECONDS = Number(process.env.SECONDS ?? 10);
const WARM_UP_SECONDS = 3;
const CONNECTIONS = 50;
const LISTS_DIR = benchListsDir('bench:screening-cost');

async function measure(spec: string, database: Record<string, string>, bodies: string[]): Promise<string> {
  const { entry, env } = entryWithSettings(spec);
  // One process (WORKERS=auto would fork workers on a larger machine and leave this pid idle).
  const service = await startService(
    { LISTS_DIR, WORKERS: '1', ...database, ...env },
    { entry, nodeArgs: ['--trace-gc', '--trace-gc-nvp'] },
  );
  try {
    await waitUntilHealthy(service);
    await liftAccountLimits(service);
    const headers = { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' };
    const load = (from: number, seconds: number) =>
      pacedLoad({
        url: service.url,
        path: '/v1/screen',
        headers,
        bodies: bodies.slice(from),
        rate: RATE,
        durationSeconds: seconds,
        connections: CONNECTIONS,
      });
    await load(0, WARM_UP_SECONDS);
    const before = threadCpuMs(service.pid);
    const othersBefore = readOtherParties();
    const gcFrom = service.output().length;
    const figures = await load(RATE * WARM_UP_SECONDS, SECONDS);
    const cpu = cpuBetween(service.pid, before, threadCpuMs(service.pid));
    const others = since(othersBefore, readOtherParties());
    const gc = summariseMainIsolateGc(service.output(), gcFrom, service.pid);
    // Per screening answered: a refused request screens nothing.
    const screenings = Math.round(RATE * SECONDS) - figures.errors;
    if (screenings <= 0) throw new Error(`${spec}: no screening was answered.`);
    const per = (ms: number) => (ms / screenings).toFixed(3);
    const serviceCpu = cpu.main + cpu.busiestOther + cpu.rest;
    const everyParty = serviceCpu + others.postgres + others.redis + others.loadGenerator;
    return (
      [
        spec,
        `${figures.rps.toFixed(0)}/s`,
        `p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, errors ${figures.errors}`,
        `CPU ms per screening: main ${per(cpu.main)}, matching ${per(cpu.busiestOther)}, others ${per(cpu.rest)}`,
        `main thread GC: ${gc.scavenges} scavenges, ${gc.scavengePauseMs.toFixed(0)} ms paused (longest ${gc.longestScavengeMs.toFixed(1)}), ` +
          `${(gc.promotedBytes / screenings / 1024).toFixed(1)} KB promoted per screening, ` +
          `${gc.markCompacts} mark-compacts (${gc.markCompactPauseMs.toFixed(0)} ms paused), helpers ${gc.backgroundMs.toFixed(0)} ms`,
      ].join(' | ') +
      `\n  whole machine, CPU ms per screening: service ${per(serviceCpu)}, ` +
      `PostgreSQL ${per(others.postgres)}, Redis ${per(others.redis)}, load generator ${per(others.loadGenerator)}, ` +
      `sum ${per(everyParty)} -> at most ${Math.floor((CORES * 1000 * screenings) / everyParty)} screenings/s on ${CORES} cores; ` +
      `machine busy ${per(others.machine)} (${((others.machine / (CORES * others.wallMs)) * 100).toFixed(0)}%)`
    );
  } finally {
    await service.stop();
  }
}

interface OtherPartiesCpu {
  /** Not CPU: wall-clock time, the instant of a reading, the span between two (`since`). */
  wallMs: number;
  postgres: number;
  redis: number;
  /** This process: the paced load's client. */
  loadGenerator: number;
  machine: number;
}

/**
 * The CPU time so far of everything else a screening costs the machine (ms): the database and
 * cache servers and the load generator, which share its cores with the service.
 */
function readOtherParties(): OtherPartiesCpu {
  const own = process.cpuUsage();
  return {
    wallMs: performance.now(),
    postgres: processesCpuMs(/^postgres/),
    redis: processesCpuMs(/^redis-server/),
    loadGenerator: (own.user + own.system) / 1000,
    machine: machineBusyMs(),
  };
}

function since(before: OtherPartiesCpu, after: OtherPartiesCpu): OtherPartiesCpu {
  const difference = { ...after };
  for (const key of Object.keys(after) as (keyof OtherPartiesCpu)[]) difference[key] -= before[key];
  return difference;
}

const CORES = os.availableParallelism();
/**
 * QUERIES=repeated measures cache hits instead: 100 queries in turn, as bench:screening's repeated
 * queries, screened live once during the warm-up and answered from the cache after it.
 */
const REPEATED_QUERIES = 100;
const repeated = process.env.QUERIES === 'repeated';
const queries = distinctScreeningBodies(
  LISTS_DIR,
  repeated ? REPEATED_QUERIES : RATE * (WARM_UP_SECONDS + SECONDS),
  20261126,
);
// One body per request of the warm-up and of the run, which starts where the warm-up ended.
const bodies = repeated
  ? Array.from({ length: RATE * (WARM_UP_SECONDS + SECONDS) }, (_, i) => queries[i % REPEATED_QUERIES]!)
  : queries;
const onPostgres = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

/** The service's database: on PostgreSQL a schema of its own per run, so each starts as new. */
async function withDatabase(run: (database: Record<string, string>) => Promise<string>): Promise<string> {
  if (!onPostgres) return run({});
  const schema = await createSchema(process.env.DATABASE_URL!, `cost_${Date.now().toString(36)}`);
  try {
    return await run({ DATABASE_URL: schema.url, REDIS_URL: process.env.REDIS_URL! });
  } finally {
    await schema.drop();
  }
}

for (let round = 1; round <= ROUNDS; round++) {
  for (const entry of ENTRIES) {
    const line = await withDatabase((database) => measure(entry, database, bodies));
    const setup = `${onPostgres ? 'PostgreSQL + Redis' : 'embedded'}${repeated ? ', cache hits' : ''}`;
    console.log(`${setup}, round ${round}: ${line}`);
  }
}
