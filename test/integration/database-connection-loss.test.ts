import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isDatabaseUnavailable, openDatabase } from '../../src/store/database.js';
import { TcpProxy } from '../support/fault-tools.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { workerPostgresUrl } from '../support/worker-stores.js';

const postgresUrl = workerPostgresUrl();

// PostgreSQL restarting under load: the connection of a client the pool has lent out dies. That
// must fail the work in flight as "database unavailable" (a 503), never crash the process (an
// unhandled 'error' event), and the pool must connect again once the database is back.
describe.skipIf(!postgresUrl)('a PostgreSQL connection lost while in use (needs DATABASE_URL)', () => {
  let proxy: TcpProxy;
  let viaProxy: string;
  beforeAll(async () => {
    const target = new URL(postgresUrl!);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(target);
    url.port = String(proxy.port);
    viaProxy = url.toString();
  });
  afterAll(async () => proxy?.cut());

  it('fails the transaction in flight as unavailable, keeps the process alive, and reconnects', async () => {
    const database = await openDatabase({ databaseUrl: viaProxy, poolSize: 2 });
    try {
      const failure = await database.db
        .transaction()
        .execute(async (trx) => {
          await sql`SELECT 1`.execute(trx);
          // The client is checked out and idle in its transaction when the connection goes.
          await proxy.cut();
          await new Promise((resolve) => setTimeout(resolve, 200));
          await sql`SELECT 1`.execute(trx);
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(failure)).toBe(true);
      await proxy.restore();
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
    }
  });
});

// A database that refuses new connections (ALLOW_CONNECTIONS false: SQLSTATE 55000) or is gone
// (renamed or dropped: 3D000) is as unavailable as one that cannot be reached: the API must say
// 503 with the problem the health check already reports, not an `internal` 500, and answer again
// once the database is back.
describe.skipIf(!postgresUrl)('a PostgreSQL database that refuses connections (needs DATABASE_URL)', () => {
  const name = `refusing_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let api: TestApp | undefined;

  beforeAll(async () => {
    const base = new URL(postgresUrl!);
    base.searchParams.delete('options');
    admin = new pg.Client({ connectionString: base.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    api = await TestApp.start(
      { name: 'PostgreSQL', databaseUrl: url.toString(), redisUrl: inject('redisUrl') },
      { env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'un_sc' } },
    );
  });
  afterAll(async () => {
    await api?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.query(`DROP DATABASE IF EXISTS ${name}_moved WITH (FORCE)`);
    await admin?.end();
  });

  /** Ends the service's open connections to the database, and waits until they are gone. */
  async function disconnect(database: string) {
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
      database,
    ]);
    for (;;) {
      const { rows } = await admin.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [database],
      );
      if (rows[0].n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * `idleKey`'s account has screened nothing, so its usage is in no instance's memory: reading it
   * asks the database (an account that screened may be answered from the counts kept in memory).
   */
  async function expectUnavailable(key: string, idleKey: string) {
    const screen = await api!.request('POST', '/v1/screen', { key, body: { query: 'Osama bin Laden' } });
    const usage = await api!.request('GET', '/v1/usage', { key: idleKey });
    for (const response of [screen, usage]) {
      expect(response.status, JSON.stringify(response.body)).toBe(503);
      expect(response.body).toMatchObject({ type: '/problems/service-unavailable', status: 503 });
    }
    const health = await api!.request('GET', '/v1/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'down', database: 'down' });
  }

  it('answers 503 while connections are not allowed or the database is renamed, and 200 once it is back', async () => {
    const { key } = await api!.createAccount();
    const { key: idleKey } = await api!.createAccount();
    const before = await api!.request('POST', '/v1/screen', { key, body: { query: 'Osama bin Laden' } });
    expect(before.status).toBe(200);

    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await disconnect(name);
    await expectUnavailable(key, idleKey);

    // Renamed while it takes no connections, so that none is open to be renamed with it.
    await admin.query(`ALTER DATABASE ${name} RENAME TO ${name}_moved`);
    await admin.query(`ALTER DATABASE ${name}_moved ALLOW_CONNECTIONS true`);
    await expectUnavailable(key, idleKey);

    await admin.query(`ALTER DATABASE ${name}_moved RENAME TO ${name}`);
    const after = await api!.request('GET', '/v1/usage', { key });
    expect(after.status).toBe(200);
  });
});
