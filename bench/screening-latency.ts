/**
 * One live screening's latency (issue 36): one connection, one request at a time, on the embedded
 * default with every list of `LISTS_DIR` loaded (`LISTS_ENABLED=all`). The query mix is half
 * misspelt, reordered and transliterated listed names (bench/support/screening-bodies.ts) and
 * half innocent parties of `negatives_dev.csv`; the threshold varies in its fifth decimal, so no
 * two bodies are alike and none is a cache hit. It prints p50 / p90 / p99 per built entry, as the
 * client saw it (socket to answer) and as the service did (its Server-Timing), once the monitor
 * runs of the lists' first versions are done (the steady state).
 *
 *   npm run build && npm run bench:latency
 *   ENTRIES=../before/dist/main.js,dist/main.js ROUNDS=40 npm run bench:latency
 *
 * ENTRIES: built entries, all started at once and measured in alternating blocks of BLOCK requests
 * (100), ROUNDS times (20), each block of the same bodies for every entry: the machine's speed drifts
 * from minute to minute, so builds are compared side by side, never one after the other, and the
 * median of the rounds' p50 ratios (to the first entry) is printed too. WARM_UP requests (500)
 * first; VERBOSE=1 prints each round. The negatives come from NEGATIVES_CSV, else
 * MATCHING_DATA_DIR, else `$LISTS_DIR/../matching/negatives_dev.csv`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { benchListsDir } from './matching/list-names.js';
import { distinctScreeningBodies } from './support/screening-bodies.js';
import { liftAccountLimits, type RunningService, startService, waitUntilHealthy } from './support/service.js';

const ENTRIES = (process.env.ENTRIES ?? 'dist/main.js').split(',');
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const BLOCK = Number(process.env.BLOCK ?? 100);
const WARM_UP = Number(process.env.WARM_UP ?? 500);
/** Health checks per entry at the end: the HTTP round trip's own share of a screening's time. */
const HEALTH_CHECKS = 1_000;
const LISTS_DIR = benchListsDir('bench:latency');
const NEGATIVES =
  process.env.NEGATIVES_CSV ??
  path.join(process.env.MATCHING_DATA_DIR ?? path.join(LISTS_DIR, '..', 'matching'), 'negatives_dev.csv');

/** Request bodies: listed names varied and innocent parties in turn, each with its own threshold. */
function bodies(count: number): string[] {
  const listed = distinctScreeningBodies(LISTS_DIR, Math.ceil(count / 2), 20261127).map(
    (b) => JSON.parse(b) as { query: string; type: string },
  );
  const innocents = (
    parse(readFileSync(NEGATIVES, 'utf8'), { columns: true, skip_empty_lines: true }) as {
      kind: string;
      name: string;
    }[]
  ).map((n) => ({ query: n.name, type: n.kind === 'person' ? 'person' : 'entity' }));
  return Array.from({ length: count }, (_, i) => {
    const q = i % 2 === 0 ? listed[(i / 2) % listed.length]! : innocents[((i - 1) / 2) % innocents.length]!;
    // 0.70000-0.70999: a different threshold per body, so a repeated name is still screened live.
    return JSON.stringify({ ...q, options: { threshold: 0.7 + (i % 1000) / 100_000 } });
  });
}

/** One keep-alive socket per service: every request of a block goes over the same connection. */
function client(service: RunningService) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const screenUrl = new URL(`${service.url}/v1/screen`);
  const healthUrl = new URL(`${service.url}/v1/health`);
  // No body: GET /v1/health, the floor of one request over the same connection.
  return (body?: string) =>
    new Promise<{ ms: number; serverMs: number; cached: boolean }>((resolve, reject) => {
      const started = performance.now();
      const request = http.request(
        body === undefined ? healthUrl : screenUrl,
        {
          method: body === undefined ? 'GET' : 'POST',
          agent,
          headers:
            body === undefined
              ? {}
              : {
                  authorization: `Bearer ${service.key}`,
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(body),
                },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            const ms = performance.now() - started;
            if (response.statusCode !== 200)
              return reject(new Error(`${response.statusCode} ${Buffer.concat(chunks).toString()}`));
            const timing = /dur=([\d.]+)/.exec(String(response.headers['server-timing'] ?? ''));
            const cached = Buffer.concat(chunks).includes('"cache_hit":true');
            resolve({ ms, serverMs: Number(timing?.[1] ?? Number.NaN), cached });
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(2)} / p90 ${percentile(sorted, 90).toFixed(2)} / p99 ${percentile(sorted, 99).toFixed(2)} ms`;
}

/**
 * Every list's first version is a list change whose monitor run is background work: while one is
 * in flight (it yields to requests, so at one connection it lasts the whole run) every request
 * shares the main thread with it. The figures are of the steady state, once none is pending.
 */
async function untilMonitorRunsDone(service: RunningService): Promise<void> {
  const started = performance.now();
  for (;;) {
    const metrics = await fetch(`${service.url}/metrics`, {
      headers: { authorization: `Bearer ${service.adminToken}` },
    }).then((r) => r.text());
    const pending = /^monitor_runs_pending (\d+)/m.exec(metrics)?.[1];
    if (pending === '0') break;
    if (performance.now() - started > 300_000) throw new Error('monitor runs still pending after 300 s');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.log(
    `monitor runs of the first list versions done after ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

const all = bodies(WARM_UP + ROUNDS * BLOCK);
const services = await Promise.all(
  ENTRIES.map((entry) => startService({ LISTS_DIR, LISTS_ENABLED: 'all', WORKERS: '1' }, { entry })),
);
try {
  for (const service of services) {
    await waitUntilHealthy(service);
    await liftAccountLimits(service);
    await untilMonitorRunsDone(service);
  }
  const screen = services.map(client);
  for (const send of screen) for (const body of all.slice(0, WARM_UP)) await send(body);
  const clientMs = ENTRIES.map(() => [] as number[]);
  const serverTimes = ENTRIES.map(() => [] as number[]);
  const roundP50s = ENTRIES.map(() => [] as number[]);
  let hits = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const block = all.slice(WARM_UP + round * BLOCK, WARM_UP + (round + 1) * BLOCK);
    // Alternate which entry goes first, so neither always follows the other's block.
    const order = ENTRIES.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const e of order) {
      const ms: number[] = [];
      for (const body of block) {
        const r = await screen[e]!(body);
        ms.push(r.ms);
        serverTimes[e]!.push(r.serverMs);
        if (r.cached) hits += 1;
      }
      clientMs[e]!.push(...ms);
      roundP50s[e]!.push(
        percentile(
          [...ms].sort((a, b) => a - b),
          50,
        ),
      );
      if (process.env.VERBOSE) console.log(`round ${round + 1} ${ENTRIES[e]}: ${summary(ms)}`);
    }
  }
  if (hits > 0) console.log(`warning: ${hits} cache hits`);
  const health = screen.map(() => [] as number[]);
  for (const [e, send] of screen.entries())
    for (let i = 0; i < HEALTH_CHECKS; i++) health[e]!.push((await send()).ms);
  console.log(
    `\nOne connection, live screenings, embedded, every list; ${ROUNDS} blocks of ${BLOCK} per entry:`,
  );
  for (const [e, entry] of ENTRIES.entries())
    console.log(
      `${entry}: client ${summary(clientMs[e]!)}; server ${summary(serverTimes[e]!)}; ` +
        `GET /v1/health ${summary(health[e]!)}`,
    );
  // Paired blocks: each round's p50 against the first entry's in the same round, the median ratio.
  for (const [e, entry] of ENTRIES.entries()) {
    if (e === 0) continue;
    const ratios = roundP50s[e]!.map((p50, round) => p50 / roundP50s[0]![round]!).sort((a, b) => a - b);
    console.log(
      `${entry} / ${ENTRIES[0]}: median of the rounds' p50 ratios ${percentile(ratios, 50).toFixed(3)}`,
    );
  }
} finally {
  await Promise.all(services.map((s) => s.stop()));
}
