/**
 * Batch screening (issue 8): 10,000 distinct names in one batch, timed from the submission to the
 * batch's `completed_at`, with every list of `LISTS_DIR` but OFSI loaded; on the embedded
 * default (one process) and on PostgreSQL + Redis (as many worker processes as cores) when
 * DATABASE_URL and REDIS_URL are set. Targets: ≤ 40 s embedded, ≤ 20 s on PostgreSQL + Redis.
 *
 * Meanwhile another account screens one name at a time and reads its usage at a steady pace, as
 * before the batch (issue 31): a batch must not slow down everyone else's requests.
 *
 *   npm run bench:batch        # ITEMS=10000 by default
 */
import { createSchema } from '../test/support/postgres-schema.js';
import { benchListsDir, loadListEntities } from './matching/list-names.js';
import { makeQueries } from './matching/queries.js';
import { type ProbeFigures, startProbe } from './support/interactive-probe.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { apiCall, type RunningService, startService, waitUntilHealthy } from './support/service.js';

const ITEMS = Number(process.env.ITEMS ?? 10_000);
const LISTS_DIR = benchListsDir('bench:batch');
/** The other account's pace: one screening and one usage read every this long. */
const PROBE_INTERVAL_MS = 250;
/** How long the other account is measured alone, before the batch is submitted. */
const ALONE_SECONDS = 6;
/** How long the other account sends requests before it is timed. */
const WARM_UP_SECONDS = 3;
/** Distinct names the other account screens (each a live screening, never a cache hit). */
const PROBE_NAMES = 400;

/** Distinct, valid queries: misspelt, reordered and transliterated listed names and unrelated names. */
function distinctNames(count: number): string[] {
  const names = new Set<string>();
  for (const q of makeQueries(loadListEntities(LISTS_DIR), count * 3, 20261123)) {
    const length = [...q.trim()].length;
    if (length >= 2 && length <= 500) names.add(q.trim());
    if (names.size === count) break;
  }
  return [...names];
}

/** The other account's requests, timed while they run: its single screenings and its usage reads. */
function probeOtherAccount(service: RunningService, key: string, names: readonly string[], from: number) {
  const call = (method: string, path: string, body?: unknown) =>
    fetch(service.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const screenings = startProbe(PROBE_INTERVAL_MS, (i) => {
    const n = from + i;
    const query = n < names.length ? names[n] : `${names[n % names.length]} ${n}`;
    return call('POST', '/v1/screen', { query, type: 'person' });
  });
  const usage = startProbe(PROBE_INTERVAL_MS, () => call('GET', '/v1/usage'));
  return {
    async stop(): Promise<{ screen: ProbeFigures; usage: ProbeFigures }> {
      return { screen: await screenings.stop(), usage: await usage.stop() };
    },
  };
}

const ms = (f: ProbeFigures) => `${f.p50.toFixed(0)} / ${f.p99.toFixed(0)}`;

async function measure(
  setup: string,
  env: Record<string, string>,
  names: string[],
  probeNames: string[],
): Promise<string> {
  const service = await startService({ LISTS_DIR, ...env });
  try {
    await waitUntilHealthy(service);
    const { data } = await apiCall(service, service.adminToken, 'GET', '/admin/v1/accounts');
    const limits = { plan: 'enterprise', rate_limit_per_minute: 1_000_000 };
    await apiCall(service, service.adminToken, 'PATCH', `/admin/v1/accounts/${data[0].id}`, limits);
    const other = await apiCall(service, service.adminToken, 'POST', '/admin/v1/accounts', {
      name: 'interactive',
      plan: 'enterprise',
    });
    await apiCall(service, service.adminToken, 'PATCH', `/admin/v1/accounts/${other.account.id}`, limits);
    const otherKey = other.key.key as string;

    // Warm-up, not timed: the first requests of a process compile their code paths (on a busy
    // machine the very first may time out; the timed ones count their errors).
    const warmUp = probeOtherAccount(service, otherKey, ['Warm Up'], 0);
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_SECONDS * 1000));
    await warmUp.stop();
    const aloneProbe = probeOtherAccount(service, otherKey, probeNames, 0);
    await new Promise((resolve) => setTimeout(resolve, ALONE_SECONDS * 1000));
    const alone = await aloneProbe.stop();
    const aloneSent = alone.screen.count;

    const items = names.map((query, i) => ({
      query,
      type: i % 3 === 2 ? 'entity' : 'person',
      reference: `r${i}`,
    }));
    const started = performance.now();
    const queued = await apiCall(service, service.key, 'POST', '/v1/screen/batch', { items });
    const submitMs = performance.now() - started;
    const duringProbe = probeOtherAccount(service, otherKey, probeNames, aloneSent);
    let batch: { status: string; completed: number; failed: number; completed_at: string | null };
    do {
      await new Promise((resolve) => setTimeout(resolve, 500));
      batch = await apiCall(service, service.key, 'GET', `/v1/screen/batch/${queued.id}?limit=1`);
    } while (batch.status !== 'completed');
    const during = await duringProbe.stop();
    const clientSeconds = (performance.now() - started) / 1000;
    const serverSeconds = (Date.parse(batch.completed_at!) - Date.parse(queued.created_at)) / 1000;
    const rate = names.length / serverSeconds;
    console.log(setup, {
      submitMs,
      serverSeconds,
      clientSeconds,
      completed: batch.completed,
      failed: batch.failed,
      itemsPerSecond: Math.round(rate),
      alone,
      during,
    });
    return `| ${setup} | ${names.length} | ${(submitMs / 1000).toFixed(2)} | ${serverSeconds.toFixed(1)} | ${rate.toFixed(0)} | ${batch.completed} | ${batch.failed} | ${ms(alone.screen)} | ${ms(during.screen)} | ${ms(alone.usage)} | ${ms(during.usage)} |`;
  } finally {
    await service.stop();
  }
}

const allNames = distinctNames(ITEMS + PROBE_NAMES);
const names = allNames.slice(0, ITEMS);
const probeNames = allNames.slice(ITEMS);
// SETUPS=postgres (or embedded) runs one setup only, when iterating on one of them.
const setups = (process.env.SETUPS ?? 'embedded,postgres').split(',');
const rows = setups.includes('embedded') ? [await measure('embedded', {}, names, probeNames)] : [];
if (setups.includes('postgres') && process.env.DATABASE_URL && process.env.REDIS_URL) {
  const schema = await createSchema(process.env.DATABASE_URL, `bench_batch_${Date.now().toString(36)}`);
  try {
    rows.push(
      await measure(
        'PostgreSQL + Redis',
        { DATABASE_URL: schema.url, REDIS_URL: process.env.REDIS_URL },
        names,
        probeNames,
      ),
    );
  } finally {
    await schema.drop();
  }
}

writeBenchmarkSection(
  'batch',
  `## Batch screening (\`npm run bench:batch\`)

${names.length} distinct names (misspelt, reordered and transliterated listed names and unrelated
names, a third of them as entities) in one \`POST /v1/screen/batch\`, with every list of
\`$LISTS_DIR\` but OFSI loaded. Timed from the batch's \`created_at\` to its
\`completed_at\` (both written by the service). The embedded default runs one process; PostgreSQL +
Redis runs one worker process per core (2 here), both claiming items. Each item is a full screening:
cache lookup, quota count, stored screening, audit row.
Targets: ≤ 40 s embedded, ≤ 20 s on PostgreSQL + Redis.

Meanwhile another account screens one distinct name (a live screening) and reads \`GET /v1/usage\`
every ${PROBE_INTERVAL_MS} ms, each timed from when it was due: for ${ALONE_SECONDS} s before the batch
("alone") and while it runs ("during"), p50 / p99 in ms.

| setup | items | submit s | done in s | items/s | completed | failed | screen alone | screen during | usage alone | usage during |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

${machineLine()}.`,
);
