/**
 * Batch screening (issue 8): 10,000 distinct names in one batch, timed from the submission to the
 * batch's `completed_at`, with every list of `LISTS_DIR` but OFSI loaded; on the embedded
 * default (one process) and on PostgreSQL + Redis (as many worker processes as cores) when
 * DATABASE_URL and REDIS_URL are set. Targets: ≤ 40 s embedded, ≤ 20 s on PostgreSQL + Redis.
 *
 *   npm run bench:batch        # ITEMS=10000 by default
 */
import { createSchema } from '../test/support/postgres-schema.js';
import { benchListsDir, loadListEntities } from './matching/list-names.js';
import { makeQueries } from './matching/queries.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { apiCall, startService, waitUntilHealthy } from './support/service.js';

const ITEMS = Number(process.env.ITEMS ?? 10_000);
const LISTS_DIR = benchListsDir('bench:batch');

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

async function measure(setup: string, env: Record<string, string>, names: string[]): Promise<string> {
  const service = await startService({ LISTS_DIR, ...env });
  try {
    await waitUntilHealthy(service);
    const { data } = await apiCall(service, service.adminToken, 'GET', '/admin/v1/accounts');
    await apiCall(service, service.adminToken, 'PATCH', `/admin/v1/accounts/${data[0].id}`, {
      plan: 'enterprise',
      rate_limit_per_minute: 1_000_000,
    });
    const items = names.map((query, i) => ({
      query,
      type: i % 3 === 2 ? 'entity' : 'person',
      reference: `r${i}`,
    }));
    const started = performance.now();
    const queued = await apiCall(service, service.key, 'POST', '/v1/screen/batch', { items });
    const submitMs = performance.now() - started;
    let batch: { status: string; completed: number; failed: number; completed_at: string | null };
    do {
      await new Promise((resolve) => setTimeout(resolve, 500));
      batch = await apiCall(service, service.key, 'GET', `/v1/screen/batch/${queued.id}?limit=1`);
    } while (batch.status !== 'completed');
    const clientSeconds = (performance.now() - started) / 1000;
    const serverSeconds = (Date.parse(batch.completed_at!) - Date.parse(queued.created_at)) / 1000;
    const rate = names.length / serverSeconds;
    console.log(setup, {
      submitMs,
      serverSeconds,
      clientSeconds,
      completed: batch.completed,
      failed: batch.failed,
    });
    return `| ${setup} | ${names.length} | ${(submitMs / 1000).toFixed(2)} | ${serverSeconds.toFixed(1)} | ${rate.toFixed(0)} | ${batch.completed} | ${batch.failed} |`;
  } finally {
    await service.stop();
  }
}

const names = distinctNames(ITEMS);
// SETUPS=postgres (or embedded) runs one setup only, when iterating on one of them.
const setups = (process.env.SETUPS ?? 'embedded,postgres').split(',');
const rows = setups.includes('embedded') ? [await measure('embedded', {}, names)] : [];
if (setups.includes('postgres') && process.env.DATABASE_URL && process.env.REDIS_URL) {
  const schema = await createSchema(process.env.DATABASE_URL, `bench_batch_${Date.now().toString(36)}`);
  try {
    rows.push(
      await measure(
        'PostgreSQL + Redis',
        { DATABASE_URL: schema.url, REDIS_URL: process.env.REDIS_URL },
        names,
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

| setup | items | submit s | done in s | items/s | completed | failed |
|---|---|---|---|---|---|---|
${rows.join('\n')}

${machineLine()}.`,
);
