/**
 * Screening throughput (issue 5): with every list of `LISTS_DIR` loaded, autocannon with
 * 50 connections against POST /v1/screen with distinct realistic queries (no cache hits), then
 * with repeated queries (all cache hits), and GET /v1/health in the same run; on the embedded
 * default and on PostgreSQL + Redis when DATABASE_URL and REDIS_URL are set.
 *
 *   npm run bench:screening      # DURATION_SECONDS=15 CONNECTIONS=50 PACED_RUNS=3 by default
 */
import { setTimeout as delay } from 'node:timers/promises';
import autocannon from 'autocannon';
import { createSchema } from '../test/support/postgres-schema.js';
import { benchListsDir } from './matching/list-names.js';
import { type PacedFigures, pacedLoad } from './support/paced-load.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { distinctScreeningBodies } from './support/screening-bodies.js';
import { liftAccountLimits, type RunningService, startService, waitUntilHealthy } from './support/service.js';

const DURATION_SECONDS = Number(process.env.DURATION_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
/**
 * Paced runs of live screenings at the target rate. A p99 of one 15 s run is decided by a handful
 * of stalls (1% of 9,000 requests at 600/s is 90, about two stalls' worth), so it moves a lot
 * between runs of one build: the table gives the run with the median p99, and the p99 of each.
 */
const PACED_RUNS = Math.max(1, Number(process.env.PACED_RUNS ?? 3));
/** A pause before each paced run, so it does not start with the queue a saturated run left. */
const SETTLE_MS = 2_000;
const LISTS_DIR = benchListsDir('bench:screening');

/** Requests per second, latencies in milliseconds, failed requests: one line of the table. */
type Figures = PacedFigures;

const headersFor = (service: RunningService) => ({
  authorization: `Bearer ${service.key}`,
  'content-type': 'application/json',
});

/** One autocannon run, as fast as the service answers over the connections. */
async function run(service: RunningService, path: string, bodies?: string[]): Promise<Figures> {
  let next = 0;
  const result = await autocannon({
    url: service.url,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    requests: [
      {
        method: bodies ? 'POST' : 'GET',
        path,
        headers: headersFor(service),
        ...(bodies
          ? { setupRequest: (req: object) => ({ ...req, body: bodies[next++ % bodies.length] }) }
          : {}),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

/**
 * Screenings at a target rate, evenly paced over at most the same number of connections, each
 * latency counted from the moment its request was due: how the latency targets are read (p99 at
 * the target throughput, not at saturation, where 50 connections queue by construction: 50 in
 * flight at 600/s is 83 ms each on average). autocannon's own rate mode sends each connection's
 * share of a second in one burst (see bench/support/paced-load.ts), so it is not used for this.
 * Each run starts after a pause (SETTLE_MS).
 */
async function paced(service: RunningService, bodies: readonly string[], rate: number): Promise<Figures> {
  await delay(SETTLE_MS);
  return pacedLoad({
    url: service.url,
    path: '/v1/screen',
    headers: headersFor(service),
    bodies,
    rate,
    durationSeconds: DURATION_SECONDS,
    connections: CONNECTIONS,
  });
}

/** Live screenings at the target rate: PACED_RUNS paced runs, each on bodies of its own. */
async function pacedRepeatedly(
  service: RunningService,
  bodies: readonly string[],
  rate: number,
): Promise<{ median: Figures; p99s: number[] }> {
  const perRun = Math.ceil(rate * DURATION_SECONDS);
  if (bodies.length < perRun * PACED_RUNS) throw new Error('Too few distinct bodies for the paced runs.');
  const runs: Figures[] = [];
  for (let i = 0; i < PACED_RUNS; i++) {
    runs.push(await paced(service, bodies.slice(i * perRun, (i + 1) * perRun), rate));
  }
  const byP99 = [...runs].sort((a, b) => a.p99 - b.p99);
  return { median: byP99[Math.floor((byP99.length - 1) / 2)]!, p99s: runs.map((run) => run.p99) };
}

function row(setup: string, what: string, f: Figures): string {
  return `| ${setup} | ${what} | ${f.rps.toFixed(0)} | ${f.p50} | ${f.p99} | ${f.errors} |`;
}

/** Cache hits are paced at this rate; live screenings at half the rate the service saturated at. */
const CACHED_TARGET = 3000;

async function measure(setup: string, env: Record<string, string>, bodies: string[]): Promise<string[]> {
  const service = await startService({ LISTS_DIR, ...env });
  try {
    await waitUntilHealthy(service);
    await liftAccountLimits(service);
    const repeated = bodies.slice(0, 100);
    for (const body of repeated)
      await fetch(`${service.url}/v1/screen`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
      });
    // Distinct bodies for each live run: a body already screened would be a cache hit.
    const fresh = bodies.slice(100);
    const half = Math.floor(fresh.length / 2);
    const live = await run(service, '/v1/screen', fresh.slice(0, half));
    // Latency is judged at half the saturation throughput measured here, on this machine, today.
    const liveTarget = Math.floor(live.rps / 2);
    const liveAtTarget = await pacedRepeatedly(service, fresh.slice(half), liveTarget);
    const cached = await run(service, '/v1/screen', repeated);
    const cachedAtTarget = await paced(service, repeated, CACHED_TARGET);
    const health = await run(service, '/v1/health');
    console.log(setup, { live, liveAtTarget, cached, cachedAtTarget, health });
    const ratio = (f: Figures) => `${((f.rps / health.rps) * 100).toFixed(0)}% of health`;
    return [
      row(setup, `distinct queries (live), as fast as it answers (${ratio(live)})`, live),
      row(
        setup,
        `distinct queries (live), at half that, ${liveTarget}/s (median of ${PACED_RUNS} runs by p99; p99s ${liveAtTarget.p99s.join(' / ')})`,
        liveAtTarget.median,
      ),
      row(
        setup,
        `repeated queries (cache hits), as fast as it answers (${ratio(cached)}; ${(cached.rps / live.rps).toFixed(1)}x live)`,
        cached,
      ),
      row(setup, `repeated queries (cache hits), at ${CACHED_TARGET}/s`, cachedAtTarget),
      row(setup, '`GET /v1/health`', health),
    ];
  } finally {
    await service.stop();
  }
}

const bodies = distinctScreeningBodies(LISTS_DIR, 200_000, 20261122);
const rows = await measure('embedded', {}, bodies);
if (process.env.DATABASE_URL && process.env.REDIS_URL) {
  const schema = await createSchema(process.env.DATABASE_URL, `bench_${Date.now().toString(36)}`);
  try {
    rows.push(
      ...(await measure(
        'PostgreSQL + Redis',
        { DATABASE_URL: schema.url, REDIS_URL: process.env.REDIS_URL },
        bodies,
      )),
    );
  } finally {
    await schema.drop();
  }
}

writeBenchmarkSection(
  'screening',
  `## Screening throughput (\`npm run bench:screening\`)

Every list of \`$LISTS_DIR\` loaded (all but OFSI, the default); the embedded default in one
process, PostgreSQL + Redis with \`WORKERS=auto\` (one process per two cores: one on this machine);
${DURATION_SECONDS} s per line over ${CONNECTIONS} connections: autocannon as fast as the service answers
(throughput), then requests evenly paced at a target rate (latency at that throughput, each
counted from the moment it was due, so no coordinated omission; bench/support/paced-load.ts, as
autocannon's rate mode sends in bursts), each after a ${SETTLE_MS / 1000} s pause; live screenings at half
the throughput measured just before, ${PACED_RUNS} times, the run with the median p99 shown. Distinct queries are misspelt,
reordered and transliterated listed names mixed with unrelated names (no two alike, so no cache
hits); repeated queries cycle over 100 already-cached ones. ${machineLine()}.
Targets: p99 ≤ 25 ms at half the saturation throughput, in each setup; cache hits ≥ 3x live
screenings.

| setup | load | req/s | p50 ms | p99 ms | errors |
|---|---|---|---|---|---|
${rows.join('\n')}`,
);
