/**
 * What a screening's facts cost (`npm run bench:structured-cost`): the same names screened by name
 * alone and with every field (a birth date, two countries, a passport), one request at a time on
 * one connection, against the service in its own process with every list of `LISTS_DIR`. Per
 * screening: the service's CPU (every thread, from /proc) and the wall-clock time of a request.
 *
 * The two modes take turns in blocks over the same names (ABBA: name-only then all fields on one
 * block, the other way round on the next), so the machine's drift and a warm cache favour neither.
 * Every body is screened once per mode, so none is answered from the screening cache. Before the
 * blocks, one screening with an identifier builds each list's identifier index (once per list
 * version, lazily): its extra cost is printed apart and is not in the steady-state figures.
 * A birth date or a country that contradicts a record can take its flag below the threshold, so a
 * screening with every field may answer fewer flags (to explain, store and send) than by name
 * alone: the flags per screening are printed beside the costs.
 *
 *   LISTS_DIR=<folder> npm run bench:structured-cost
 *
 * COUNT (1,000) names, BLOCK (100) names a block, ENTRY: a built entry (`dist/main.js`) instead of
 * `src/main.ts` under tsx.
 */
import { readFileSync } from 'node:fs';
import { benchListsDir } from './matching/list-names.js';
import { seededRandom } from './matching/queries.js';
import { cpuMsOfStat } from './support/proc-cpu.js';
import { distinctScreeningBodies } from './support/screening-bodies.js';
import {
  apiCall,
  liftAccountLimits,
  type RunningService,
  startService,
  waitUntilHealthy,
} from './support/service.js';

const LISTS_DIR = benchListsDir('bench:structured-cost');
const COUNT = Number(process.env.COUNT ?? 1000);
const BLOCK = Number(process.env.BLOCK ?? 100);
const WARM_UP = 100;
const COUNTRIES = ['BR', 'DE', 'IQ', 'RU', 'CN', 'US', 'IR', 'KP', 'SY', 'VE', 'FR', 'IN'];

type Body = { query: string; type: string } & Record<string, unknown>;

/** The same body with a birth date, two countries and a passport, drawn from `random`. */
function withEveryField(body: Body, random: () => number): Body {
  const pad = (n: number) => String(n).padStart(2, '0');
  const country = () => COUNTRIES[Math.floor(random() * COUNTRIES.length)]!;
  const issuer = country();
  return {
    ...body,
    date_of_birth: `${1940 + Math.floor(random() * 60)}-${pad(1 + Math.floor(random() * 12))}-${pad(1 + Math.floor(random() * 28))}`,
    countries: [issuer, country()],
    identifiers: [
      { type: 'passport', value: String(10_000_000 + Math.floor(random() * 89_999_999)), country: issuer },
    ],
  };
}

const processCpuMs = (pid: number) => cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));

interface Cost {
  cpu: number;
  wall: number;
  /** Flags answered: facts that rule a record out leave fewer to explain, store and send. */
  flags: number;
}

/**
 * The service's CPU (ms), the wall-clock time (ms) and the flags of screening `bodies` one after another; a
 * cache hit would measure nothing, so it stops the bench.
 */
async function screen(service: RunningService, bodies: readonly Body[]): Promise<Cost> {
  const cpu = processCpuMs(service.pid);
  const wall = performance.now();
  let flags = 0;
  for (const body of bodies) {
    const result = await apiCall<{ cache_hit: boolean; flags: unknown[] }>(
      service,
      service.key,
      'POST',
      '/v1/screen',
      body,
    );
    if (result.cache_hit) throw new Error(`A cache hit: ${JSON.stringify(body)}`);
    flags += result.flags.length;
  }
  return { cpu: processCpuMs(service.pid) - cpu, wall: performance.now() - wall, flags };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const random = seededRandom(20261127);
const all = distinctScreeningBodies(LISTS_DIR, WARM_UP + COUNT + 1, 20261127).map(
  (text) => JSON.parse(text) as Body,
);
const warmUp = all.slice(0, WARM_UP);
const first = all[WARM_UP]!;
const names = all.slice(WARM_UP + 1);
const full = names.map((body) => withEveryField(body, random));

const service = await startService(
  { LISTS_DIR, WORKERS: '1' },
  process.env.ENTRY ? { entry: process.env.ENTRY } : {},
);
try {
  await waitUntilHealthy(service, 1);
  await liftAccountLimits(service);
  await screen(service, warmUp);
  // The identifier indexes: the first screening with an identifier against its name-only twin.
  const twin = await screen(service, [first]);
  const building = await screen(service, [withEveryField(first, random)]);
  const totals = { nameOnly: { cpu: 0, wall: 0, flags: 0 }, allFields: { cpu: 0, wall: 0, flags: 0 } };
  // Each block's cost with every field over its cost by name alone: the median resists the
  // bursts of other work on a shared machine that a total absorbs.
  const ratios = { cpu: [] as number[], wall: [] as number[] };
  for (let from = 0, block = 0; from < names.length; from += BLOCK, block++) {
    const plain = () => screen(service, names.slice(from, from + BLOCK));
    const fields = () => screen(service, full.slice(from, from + BLOCK));
    const nameOnly = block % 2 === 0 ? await plain() : undefined;
    const allFields = await fields();
    const plainCost = nameOnly ?? (await plain());
    totals.nameOnly.cpu += plainCost.cpu;
    totals.nameOnly.wall += plainCost.wall;
    totals.nameOnly.flags += plainCost.flags;
    totals.allFields.flags += allFields.flags;
    totals.allFields.cpu += allFields.cpu;
    totals.allFields.wall += allFields.wall;
    if (plainCost.cpu > 0) ratios.cpu.push(allFields.cpu / plainCost.cpu);
    ratios.wall.push(allFields.wall / plainCost.wall);
  }
  const per = (ms: number) => (ms / names.length).toFixed(3);
  const more = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(1)}%`;
  const medianMore = (values: number[]) => `${((median(values) - 1) * 100).toFixed(1)}%`;
  console.log(`${names.length} names, each screened by name alone and with every field, one connection:`);
  console.log(
    '| | service CPU ms per screening | wall ms per screening | flags per screening |\n|---|---|---|---|',
  );
  console.log(
    `| name only | ${per(totals.nameOnly.cpu)} | ${per(totals.nameOnly.wall)} | ${per(totals.nameOnly.flags)} |`,
  );
  console.log(
    `| every field | ${per(totals.allFields.cpu)} | ${per(totals.allFields.wall)} | ${per(totals.allFields.flags)} |`,
  );
  console.log(
    `| every field costs more by, in all | ${more(totals.nameOnly.cpu, totals.allFields.cpu)} | ${more(totals.nameOnly.wall, totals.allFields.wall)} | |`,
  );
  console.log(
    `| every field costs more by, median of ${ratios.wall.length} blocks of ${BLOCK} | ${medianMore(ratios.cpu)} | ${medianMore(ratios.wall)} | |`,
  );
  console.log(
    `\nThe first screening with an identifier (builds the identifier indexes): ${building.cpu.toFixed(0)} ms CPU, ` +
      `${building.wall.toFixed(0)} ms wall; its name-only twin ${twin.cpu.toFixed(0)} ms CPU, ${twin.wall.toFixed(0)} ms wall.`,
  );
} finally {
  await service.stop();
}
