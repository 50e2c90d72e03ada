/**
 * Soak (issue 10): the real service in its own process with every list of `LISTS_DIR`
 * loaded, distinct realistic screenings (no cache hits) at a fixed rate for 5 minutes; prints the
 * errors, the p50/p99 of each minute and the service's RSS every 10 s (also written to
 * bench/results/). Not a test: it asserts nothing, it measures.
 *
 *   npm run bench:soak                      # SOAK_SECONDS=300 SOAK_RATE=20 CONNECTIONS=4 by default
 *   SOAK_SECONDS=30 npm run bench:soak      # a trial run
 *
 * With DATABASE_URL and REDIS_URL set it runs on PostgreSQL (a schema of its own, dropped at the
 * end) + Redis, one server process, instead of the embedded default.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { MEMORY_CACHE_MAX_ENTRIES } from '../src/store/result-cache.js';
import { createSchema } from '../test/support/postgres-schema.js';
import { benchListsDir } from './matching/list-names.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { distinctScreeningBodies } from './support/screening-bodies.js';
import { liftAccountLimits, type RunningService, startService, waitUntilHealthy } from './support/service.js';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
/**
 * A rate one service process under tsx sustains on a 2-core machine with every list loaded, with
 * room to spare, so that the soak shows drift (memory, latency), not saturation. Few connections:
 * autocannon paces each connection on its own timer, and with many they fire together, in bursts
 * that queue.
 */
const SOAK_RATE = Number(process.env.SOAK_RATE ?? 20);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 4);
/**
 * Distinct screenings sent as fast as the service answers before the soak starts, so that the soak
 * measures the steady state: the embedded in-memory result cache full (its entry cap), the JIT and
 * the indexes' per-token caches warm. Without it the cache fills during the soak and its RSS rises
 * by design, which says nothing about a leak.
 */
const WARMUP_SCREENINGS = Number(process.env.SOAK_WARMUP ?? MEMORY_CACHE_MAX_ENTRIES);
const RSS_SAMPLE_SECONDS = 10;
const BUCKET_SECONDS = 60;
const LISTS_DIR = benchListsDir('bench:soak');

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Minute {
  from: number;
  to: number;
  count: number;
  p50: number;
  p99: number;
  max: number;
}

interface SoakFigures {
  setup: string;
  rps: number;
  requests: number;
  errors: number;
  errorDetail: string;
  p50: number;
  p99: number;
  minutes: Minute[];
  rss: { second: number; mb: number }[];
  rssAfterWarmUp: number;
  loadBefore: number[];
  loadAfter: number[];
}

/** autocannon's request list: `POST /v1/screen` with the bodies in turn, over and over. */
function screenings(service: RunningService, bodies: string[]): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'POST',
      path: '/v1/screen',
      headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
      setupRequest: (req: autocannon.Request) => ({ ...req, body: bodies[next++ % bodies.length] }),
    },
  ];
}

/** Sends every warm-up body once, ten at a time, as fast as the service answers; returns the RSS after. */
async function warmUp(service: RunningService, bodies: string[]): Promise<number> {
  if (bodies.length === 0) return rssMb(service.pid);
  const result = await autocannon({
    url: service.url,
    connections: 10,
    amount: bodies.length,
    requests: screenings(service, bodies),
  });
  console.log(
    `warm-up: ${result.requests.total} screenings, non-2xx ${result.non2xx}, RSS ${rssMb(service.pid)} MB`,
  );
  return rssMb(service.pid);
}

async function soak(
  setup: string,
  service: RunningService,
  { bodies, warmup }: { bodies: string[]; warmup: string[] },
): Promise<SoakFigures> {
  await waitUntilHealthy(service, 5);
  await liftAccountLimits(service);
  const rssAfterWarmUp = await warmUp(service, warmup);
  const loadBefore = os.loadavg();
  const started = Date.now();
  const rss: SoakFigures['rss'] = [{ second: 0, mb: rssMb(service.pid) }];
  const sampler = setInterval(() => {
    rss.push({ second: Math.round((Date.now() - started) / 1000), mb: rssMb(service.pid) });
    console.log(`${setup}: ${rss.at(-1)!.second} s, RSS ${rss.at(-1)!.mb} MB`);
  }, RSS_SAMPLE_SECONDS * 1000);
  const latencies: number[][] = [];
  const statuses = new Map<number, number>();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: service.url,
        connections: CONNECTIONS,
        duration: SOAK_SECONDS,
        overallRate: SOAK_RATE,
        requests: screenings(service, bodies),
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      // The answers to the last requests, arriving just after the end, count in the last minute.
      const lastBucket = Math.ceil(SOAK_SECONDS / BUCKET_SECONDS) - 1;
      const bucket = Math.min(lastBucket, Math.floor((Date.now() - started) / (BUCKET_SECONDS * 1000)));
      latencies[bucket] = latencies[bucket] ?? [];
      latencies[bucket].push(responseTime);
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
    });
  });
  clearInterval(sampler);
  rss.push({ second: Math.round((Date.now() - started) / 1000), mb: rssMb(service.pid) });
  const minutes = latencies.map((times, i) => {
    const sorted = [...(times ?? [])].sort((a, b) => a - b);
    return {
      from: i * BUCKET_SECONDS,
      to: Math.min((i + 1) * BUCKET_SECONDS, SOAK_SECONDS),
      count: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
    };
  });
  const errors = result.errors + result.timeouts + result.non2xx;
  const errorDetail = `connection errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}; statuses ${JSON.stringify(Object.fromEntries(statuses))}`;
  console.log(`${setup}: ${errorDetail}`);
  return {
    setup,
    rps: result.requests.average,
    requests: result.requests.total,
    errors,
    errorDetail,
    p50: result.latency.p50,
    p99: result.latency.p99,
    minutes,
    rss,
    rssAfterWarmUp,
    loadBefore,
    loadAfter: os.loadavg(),
  };
}

function section(title: string, figures: SoakFigures[]): string {
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');
  const parts = figures.map((f) => {
    const minuteRows = f.minutes
      .map(
        (m) =>
          `| ${m.from}-${m.to} s | ${m.count} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.max.toFixed(1)} |`,
      )
      .join('\n');
    const rssLine = f.rss.map((s) => `${s.second} s: ${s.mb}`).join(', ');
    return `### ${f.setup}

${f.requests} screenings in ${SOAK_SECONDS} s, ${f.rps.toFixed(1)} req/s on average; errors: **${f.errors}**
(${f.errorDetail}). Whole run (autocannon, corrected for coordinated omission): p50 ${f.p50} ms,
p99 ${f.p99} ms. Load average (1/5/15 min) before ${load(f.loadBefore)}, after ${load(f.loadAfter)}.

| minute | answers | p50 ms | p99 ms | max ms |
|---|---|---|---|---|
${minuteRows}

RSS of the service process (MB, every ${RSS_SAMPLE_SECONDS} s from the start of the soak, after the
warm-up): ${rssLine}.`;
  });
  return `## ${title} (\`npm run bench:soak\`)

The service in its own process (\`src/main.ts\` under tsx) with every list of \`$LISTS_DIR\`
loaded (\`LISTS_ENABLED=all\`), remote providers off; autocannon sends distinct realistic screenings
(misspelt, reordered and transliterated listed names and unrelated names, no cache hits) at a fixed
${SOAK_RATE} req/s over ${CONNECTIONS} connections for ${SOAK_SECONDS} s, after a warm-up of
${WARMUP_SCREENINGS} other distinct screenings sent as fast as it answers (the embedded in-memory
result cache holds ${MEMORY_CACHE_MAX_ENTRIES} results: the warm-up fills it, so the soak sees the
steady state; RSS after the warm-up: ${figures.map((f) => `${f.rssAfterWarmUp} MB`).join(', ')}). Per-minute latencies are
the raw answer times autocannon reports for each response; RSS is read from \`/proc/PID/status\`.
${machineLine()}; ${os.cpus().length} cores shared with other engineers' test runs (see the load average).

${parts.join('\n\n')}`;
}

const soakCount = Math.ceil(SOAK_RATE * SOAK_SECONDS * 1.1) + 100;
const all = distinctScreeningBodies(LISTS_DIR, soakCount + WARMUP_SCREENINGS, 20261123);
const bodies = { bodies: all.slice(0, soakCount), warmup: all.slice(soakCount) };
const env = { LISTS_DIR, LISTS_ENABLED: 'all' };
const results: SoakFigures[] = [];
if (process.env.DATABASE_URL && process.env.REDIS_URL) {
  const schema = await createSchema(process.env.DATABASE_URL, `soak_${Date.now().toString(36)}`);
  const service = await startService({
    ...env,
    DATABASE_URL: schema.url,
    REDIS_URL: process.env.REDIS_URL,
    WORKERS: '1',
  });
  try {
    results.push(await soak('PostgreSQL + Redis (one process)', service, bodies));
  } finally {
    await service.stop();
    await schema.drop();
  }
} else {
  const service = await startService(env);
  try {
    results.push(await soak('embedded (PGlite, in-memory cache)', service, bodies));
  } finally {
    await service.stop();
  }
}
const onPostgres = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const markdown = section(onPostgres ? 'Soak on PostgreSQL + Redis' : 'Soak', results);
console.log(markdown);
writeBenchmarkSection(onPostgres ? 'soak-postgres' : 'soak', markdown);
