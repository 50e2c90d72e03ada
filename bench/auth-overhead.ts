/**
 * Authenticated `GET /v1/usage` against `GET /v1/health` in the same run, with autocannon,
 * on the embedded default and on PostgreSQL + Redis (when DATABASE_URL and REDIS_URL are set).
 * Target (issue 2): the authenticated path keeps at least 60% of the health endpoint's throughput.
 *
 *   npm run bench:auth        # DURATION_SECONDS=10 CONNECTIONS=50 by default
 */
import autocannon from 'autocannon';
import { createSchema } from '../test/support/postgres-schema.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { startService } from './support/service.js';

const DURATION_SECONDS = Number(process.env.DURATION_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);

interface Figures {
  rps: number;
  p99: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string> = {}): Promise<Figures> {
  const problems = new Map<string, number>();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections: CONNECTIONS, duration: DURATION_SECONDS, headers },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('reqError', (error: Error) =>
      problems.set(error.message, (problems.get(error.message) ?? 0) + 1),
    );
    instance.on('response', (_client, status: number) => {
      if (status >= 300) problems.set(`HTTP ${status}`, (problems.get(`HTTP ${status}`) ?? 0) + 1);
    });
  });
  if (problems.size > 0) console.log(url, Object.fromEntries(problems));
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function measure(setup: string, env: Record<string, string>): Promise<string> {
  const service = await startService(env);
  try {
    // The bootstrap account gets a limit far above what the bench sends, so 429s do not flatter it.
    const accounts = await fetch(`${service.url}/admin/v1/accounts`, {
      headers: { authorization: `Bearer ${service.adminToken}` },
    }).then((r) => r.json() as Promise<{ data: { id: string }[] }>);
    await fetch(`${service.url}/admin/v1/accounts/${accounts.data[0]!.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rate_limit_per_minute: 1_000_000 }),
    });
    await load(`${service.url}/v1/health`); // warm-up
    const health = await load(`${service.url}/v1/health`);
    const usage = await load(`${service.url}/v1/usage`, { authorization: `Bearer ${service.key}` });
    const ratio = usage.rps / health.rps;
    console.log(
      `${setup}: health ${health.rps.toFixed(0)} req/s p99 ${health.p99} ms; usage ${usage.rps.toFixed(0)} req/s p99 ${usage.p99} ms; ratio ${(ratio * 100).toFixed(0)}%; errors ${health.errors + usage.errors}`,
    );
    return `| ${setup} | ${health.rps.toFixed(0)} | ${health.p99} | ${usage.rps.toFixed(0)} | ${usage.p99} | ${(ratio * 100).toFixed(0)}% | ${health.errors + usage.errors} |`;
  } finally {
    await service.stop();
  }
}

// No lists: this bench is about the authenticated path, and health then pings only the stores.
const rows = [await measure('embedded (PGlite, in-memory limiter)', { LISTS_ENABLED: 'none' })];
if (process.env.DATABASE_URL && process.env.REDIS_URL) {
  const schema = await createSchema(process.env.DATABASE_URL, `bench_${Date.now().toString(36)}`);
  try {
    rows.push(
      await measure('PostgreSQL + Redis', {
        DATABASE_URL: schema.url,
        REDIS_URL: process.env.REDIS_URL,
        LISTS_ENABLED: 'none',
      }),
    );
  } finally {
    await schema.drop();
  }
}

writeBenchmarkSection(
  'auth',
  `## Authentication overhead: \`GET /v1/usage\` (key lookup, rate limit, audit row, two queries) against \`GET /v1/health\`

The embedded default in one process, PostgreSQL + Redis with \`WORKERS=auto\` (two processes here); autocannon with ${CONNECTIONS} connections for ${DURATION_SECONDS} s per endpoint, same run (\`npm run bench:auth\`).
${machineLine()}. Target: the authenticated path keeps at least 60% of the health endpoint's throughput.

| setup | health req/s | health p99 ms | usage req/s | usage p99 ms | usage / health | errors |
|---|---|---|---|---|---|---|
${rows.join('\n')}`,
);
