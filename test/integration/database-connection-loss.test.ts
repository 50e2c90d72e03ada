import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, openDatabase } from '../../src/store/database.js';
import { TcpProxy } from '../support/fault-tools.js';
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
