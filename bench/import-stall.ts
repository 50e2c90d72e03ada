/**
 * How long a large import's body holds up everyone else (issue 45): `GET /v1/health` is asked
 * every 5 ms while a monitor import or a batch is posted, and the longest wait for an answer is
 * reported, with the import's status, its answer's size and its own time.
 *
 * Then (issue 45, item 13) what a valid import costs another account's live screenings: one
 * `POST /v1/screen` after another (a new name each, so none is a cache hit) from a Professional
 * account while an Enterprise account imports 6,000 and then 100,000 monitors; their p50, p99 and
 * max are reported for the import's request (parse, check, store) and for the 5 s after it (the
 * first screenings, background work), beside the same screenings with no import.
 *
 * Cases: nothing posted (the machine's own noise); 100,000 one-letter rows in CSV and in JSON (a
 * 422 for every row); 100,000 JSON items with a field the schema does not know, and 32 MB of
 * numbers as a JSON import's items (422); a valid 100,000-row CSV and JSON import on an account
 * whose month has no room for them (402 after parsing), and the same in JSON with long names, about
 * the largest body taken (32 MB); six bad CSV imports at once; a Starter key posting 31 MB (403
 * before the body is read); batches of 10,000 one-letter rows in CSV and JSON.
 *
 *   npm run bench:import-stall             # embedded; DATABASE_URL (+ REDIS_URL) for PostgreSQL
 *   npm run bench:import-stall -- screenings   # the live screenings' part only
 *   npm run bench:import-stall -- json         # the JSON bodies' health stalls only
 */
import { FIXTURE_LISTS_DIR } from '../test/support/real-lists.js';
import { apiCall, startService } from './support/service.js';

const ROWS = 100_000;
const HEALTH_EVERY_MS = 5;

interface Figures {
  status: number;
  answerBytes: number;
  ms: number;
}

/** Asks for health at a steady pace until stopped; the longest a health answer took, and how many. */
function healthProbe(url: string) {
  let stopped = false;
  let worstMs = 0;
  let answered = 0;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      await (await fetch(`${url}/v1/health`)).arrayBuffer();
      worstMs = Math.max(worstMs, performance.now() - started);
      answered++;
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { worstMs: Math.round(worstMs), answered };
    },
  };
}

async function post(url: string, key: string, path: string, body: string, type: string): Promise<Figures> {
  const started = performance.now();
  const response = await fetch(url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': type },
    body,
  });
  const answer = await response.arrayBuffer();
  return {
    status: response.status,
    answerBytes: answer.byteLength,
    ms: Math.round(performance.now() - started),
  };
}

/** Screens a new name at a time from `key` until stopped; each screening's time, in order. */
function screeningProbe(url: string, key: string) {
  let stopped = false;
  // Each screening's start and time: a screening counts in the window it started in.
  const times: Array<{ at: number; ms: number }> = [];
  // The statuses of the screenings not answered 200, by status.
  const failures = new Map<number, number>();
  let n = 0;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const response = await fetch(`${url}/v1/screen`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `Probe Person ${n++} ${Math.random().toString(36).slice(2, 8)}`,
          type: 'person',
        }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) failures.set(response.status, (failures.get(response.status) ?? 0) + 1);
      times.push({ at: started, ms: performance.now() - started });
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
    }
  })();
  return {
    /** The times of the screenings started before `before` (all by default), and forgets them. */
    take(before = Number.POSITIVE_INFINITY): number[] {
      const taken = times.filter((t) => t.at < before);
      times.splice(0, times.length, ...times.filter((t) => t.at >= before));
      return taken.map((t) => t.ms);
    },
    /** Until every screening started before now has finished. */
    async settle() {
      const now = performance.now();
      while (!stopped && !times.some((t) => t.at >= now)) await new Promise((r) => setTimeout(r, 5));
    },
    failures: () => failures,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

function percentiles(times: readonly number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms (${sorted.length})`;
}

/** Another account's live screenings before, during and after valid imports of 6,000 and 100,000 rows. */
async function liveScreenings(
  service: Awaited<ReturnType<typeof startService>>,
  account: (plan: string) => Promise<string>,
) {
  const importer = await account('enterprise');
  const screener = await account('professional');
  const probe = screeningProbe(service.url, screener);
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    await wait(3_000); // warm up
    probe.take();
    await wait(3_000);
    console.log(`live screenings, no import: ${percentiles(probe.take())}`);
    for (const rows of [6_000, 100_000]) {
      const csv = `query,type\n${Array.from({ length: rows }, (_, i) => `Imported Party ${rows} ${i},person\n`).join('')}`;
      probe.take();
      const figures = await post(service.url, importer, '/v1/monitors/import', csv, 'text/csv');
      const answered = performance.now();
      await wait(5_000);
      await probe.settle();
      const during = probe.take(answered);
      const after = probe.take(answered + 5_000);
      console.log(
        `${rows.toLocaleString('en')}-row import (${figures.status} in ${figures.ms} ms): ` +
          `live screenings during it ${percentiles(during)}; the 5 s after ${percentiles(after)}`,
      );
    }
    for (const [status, count] of probe.failures())
      console.log(`${count} live screenings answered ${status}`);
  } finally {
    await probe.stop();
  }
}

async function main() {
  const service = await startService({
    LISTS_ENABLED: 'un_sc',
    LISTS_DIR: FIXTURE_LISTS_DIR,
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
  try {
    const account = async (plan: string) => {
      const made = await apiCall(service, service.adminToken, 'POST', '/admin/v1/accounts', {
        name: plan,
        plan,
      });
      await apiCall(service, service.adminToken, 'PATCH', `/admin/v1/accounts/${made.account.id}`, {
        rate_limit_per_minute: 1_000_000,
      });
      return made.key.key as string;
    };
    const jsonOnly = process.argv.includes('json');
    if (!jsonOnly) await liveScreenings(service, account);
    if (process.argv.includes('screenings')) return;
    const professional = await account('professional');
    const starter = await account('starter');
    const oneLetter = `query\n${'x\n'.repeat(ROWS)}`;
    const valid = `query,type\n${Array.from({ length: ROWS }, (_, i) => `Person Number ${i},person\n`).join('')}`;
    const validJson = JSON.stringify({
      items: Array.from({ length: ROWS }, (_, i) => ({ query: `Person Number ${i}`, type: 'person' })),
    });
    const oneLetterJson = (rows: number) =>
      JSON.stringify({ items: Array.from({ length: rows }, () => ({ query: 'x' })) });
    // Items the schema refuses (every one has a field it does not know).
    const unknownFieldJson = JSON.stringify({
      items: Array.from({ length: ROWS }, () => ({ query: 'x', kind: 'person' })),
    });
    // As many items as fit in the body limit (each `1,`): none can be an item.
    const manyNumbersJson = `{"items":[${'1,'.repeat(16 * 2 ** 20 - 8)}1]}`;
    // 100,000 items as long as the body limit allows: the longest JSON.parse a body can cost.
    const padding = 'N'.repeat(300);
    const largestJson = JSON.stringify({
      items: Array.from({ length: ROWS }, (_, i) => ({ query: `${padding} ${i}`, type: 'person' })),
    });
    const big = `query\n${'Some Long Name To Fill The Body\n'.repeat(1_000_000)}`;
    const noise = "nothing posted for 2 s (the machine's own noise)";
    const cases: Array<[string, () => Promise<Figures[]>]> = [
      [noise, () => new Promise((resolve) => setTimeout(() => resolve([]), 2_000))],
      [
        '100,000 one-letter rows, CSV',
        async () => [await post(service.url, professional, '/v1/monitors/import', oneLetter, 'text/csv')],
      ],
      [
        '100,000 one-letter rows, JSON',
        async () => [
          await post(
            service.url,
            professional,
            '/v1/monitors/import',
            oneLetterJson(ROWS),
            'application/json',
          ),
        ],
      ],
      [
        '100,000 items with an unknown field, JSON',
        async () => [
          await post(service.url, professional, '/v1/monitors/import', unknownFieldJson, 'application/json'),
        ],
      ],
      [
        `${(manyNumbersJson.length / 2 ** 20).toFixed(0)} MB of numbers as items, JSON`,
        async () => [
          await post(service.url, professional, '/v1/monitors/import', manyNumbersJson, 'application/json'),
        ],
      ],
      [
        `100,000 long names, JSON (${(largestJson.length / 2 ** 20).toFixed(1)} MB)`,
        async () => [
          await post(service.url, professional, '/v1/monitors/import', largestJson, 'application/json'),
        ],
      ],
      [
        '100,000 valid rows, CSV (more than remain)',
        async () => [await post(service.url, professional, '/v1/monitors/import', valid, 'text/csv')],
      ],
      [
        '100,000 valid rows, JSON (more than remain)',
        async () => [
          await post(service.url, professional, '/v1/monitors/import', validJson, 'application/json'),
        ],
      ],
      [
        'six one-letter CSVs at once',
        () =>
          Promise.all(
            Array.from({ length: 6 }, () =>
              post(service.url, professional, '/v1/monitors/import', oneLetter, 'text/csv'),
            ),
          ),
      ],
      [
        `Starter, ${Math.round(big.length / 1e6)} MB`,
        async () => [await post(service.url, starter, '/v1/monitors/import', big, 'text/csv')],
      ],
      [
        'batch: 10,000 one-letter rows, CSV',
        async () => [
          await post(
            service.url,
            professional,
            '/v1/screen/batch',
            `query\n${'x\n'.repeat(10_000)}`,
            'text/csv',
          ),
        ],
      ],
      [
        'batch: 10,000 one-letter rows, JSON',
        async () => [
          await post(
            service.url,
            professional,
            '/v1/screen/batch',
            oneLetterJson(10_000),
            'application/json',
          ),
        ],
      ],
    ];
    for (const [name, run] of cases) {
      if (jsonOnly && !name.includes('JSON') && name !== noise) continue;
      await run(); // once to warm up the path
      const probe = healthProbe(service.url);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const figures = await run();
      const health = await probe.stop();
      const answers = figures.map((f) => `${f.status} ${(f.answerBytes / 1024).toFixed(1)} KB in ${f.ms} ms`);
      console.log(
        `${name}: health worst ${health.worstMs} ms (${health.answered} answers); ${answers.join('; ')}`,
      );
    }
  } finally {
    await service.stop();
  }
}

await main();
