import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/store/database.js';
import { embeddedPool } from '../../src/store/embedded-pg-connection.js';
import { MAX_PREPARED_STATEMENTS } from '../../src/store/preparing-client.js';
import { backends } from '../support/backends.js';

// Parameterised statements run as prepared statements of their session (preparing-client.ts):
// parsed once, answered as before, and never more of them than the bound.
for (const backend of backends()) {
  describe(`prepared statements (${backend.name})`, () => {
    let database: Database;
    beforeAll(async () => {
      database = await openDatabase({ databaseUrl: backend.databaseUrl, poolSize: 2 });
    });
    afterAll(() => database.close());

    it('prepares a repeated statement once per session and answers each execution with its own values', async () => {
      await database.db.connection().execute(async (session) => {
        const sums: number[] = [];
        for (let i = 0; i < 5; i++)
          sums.push((await sql<{ sum: number }>`SELECT ${i}::int + 40 AS sum`.execute(session)).rows[0]!.sum);
        expect(sums).toEqual([40, 41, 42, 43, 44]);
        const prepared = await sql<{ statement: string }>`
          SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int + 40%'`.execute(
          session,
        );
        expect(prepared.rows).toHaveLength(1);
      });
    });

    it(`keeps at most ${MAX_PREPARED_STATEMENTS} statements prepared in a session, and runs the others unprepared`, async () => {
      await database.db.connection().execute(async (session) => {
        const distinct = MAX_PREPARED_STATEMENTS + 20;
        for (let i = 0; i < distinct; i++) {
          const { rows } = await sql<{ v: number }>`SELECT ${i}::int AS ${sql.id(`v${i}`)}`.execute(session);
          expect(Object.values(rows[0]!)).toEqual([i]);
        }
        const { rows } = await sql<{
          count: string;
        }>`SELECT count(*) AS count FROM pg_prepared_statements`.execute(session);
        expect(Number(rows[0]!.count)).toBeLessThanOrEqual(MAX_PREPARED_STATEMENTS);
        expect(Number(rows[0]!.count)).toBeGreaterThan(MAX_PREPARED_STATEMENTS / 2);
      });
    });
  });
}

describe('prepared statements on the embedded database, whose one session outlives its clients', () => {
  it('lets the next client prepare again the statements of a client that died', async () => {
    const pglite = new PGlite();
    const pool = embeddedPool(pglite);
    try {
      const dying = await pool.connect();
      expect((await dying.query('SELECT $1::int * 2 AS v', [21])).rows).toEqual([{ v: 42 }]);
      dying.release(new Error('the request holding it failed'));
      const next = await pool.connect();
      try {
        expect((await next.query('SELECT $1::int * 2 AS v', [5])).rows).toEqual([{ v: 10 }]);
      } finally {
        next.release();
      }
    } finally {
      await pool.end();
      await pglite.close();
    }
  });
});
