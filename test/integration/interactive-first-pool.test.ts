import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inBackground } from '../../src/background-work.js';
import {
  connectPostgres,
  DATABASE_CONNECT_TIMEOUT_MS,
  type Database,
  isDatabaseUnavailable,
  openDatabase,
} from '../../src/store/database.js';
import { backgroundConnections } from '../../src/store/interactive-first-pool.js';
import { backends } from '../support/backends.js';

// Batch items run as background work: a request's query must not wait behind every statement a
// batch has queued (on the embedded database's single session, seconds), only behind the few
// background statements already given a connection.
describe.each(backends())('the database serves requests before background work ($name)', (backend) => {
  let database: Database;
  beforeAll(async () => {
    // Four connections on PostgreSQL: without the rule, background work would take them all.
    // (The embedded database always has one.)
    database = backend.databaseUrl
      ? connectPostgres(backend.databaseUrl, 4)
      : await openDatabase({ poolSize: 4 });
  }, 60_000);
  afterAll(async () => database?.close());

  it('answers a query asked after queued background statements before all but a few of them', async () => {
    const order: string[] = [];
    const background = Array.from({ length: 10 }, () =>
      inBackground(async () => {
        await sql`SELECT pg_sleep(0.02)`.execute(database.db);
        order.push('background');
      }),
    );
    await sql`SELECT 1`.execute(database.db);
    order.push('request');
    await Promise.all(background);
    expect(order.filter((o) => o === 'background')).toHaveLength(10);
    expect(order.indexOf('request')).toBeLessThanOrEqual(backgroundConnections(backend.databaseUrl ? 4 : 1));
  });

  it.skipIf(!backend.databaseUrl)(
    'still refuses a request that waits for a connection longer than the pool allows, as unavailable',
    async () => {
      const single = connectPostgres(backend.databaseUrl!, 1);
      try {
        const failure = await single.db.transaction().execute(async (tx) => {
          await sql`SELECT 1`.execute(tx);
          // The pool's one connection is held: a query outside the transaction must give up.
          return sql`SELECT 1`.execute(single.db).then(
            () => undefined,
            (error: unknown) => error,
          );
        });
        expect(isDatabaseUnavailable(failure)).toBe(true);
      } finally {
        await single.close();
      }
    },
    DATABASE_CONNECT_TIMEOUT_MS + 10_000,
  );
});
