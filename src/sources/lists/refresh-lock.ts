import { sql } from 'kysely';
import type { Db } from '../../store/database.js';

/**
 * Advisory lock key of list refreshes ("list" in ASCII): one instance refreshes at a time. It is
 * paired with a hash of the session's schema, because advisory locks are per database: two
 * deployments (or test runs) in two schemas of one server must not wait for each other.
 */
export const LIST_REFRESH_LOCK_KEY = 0x6c697374;

export type DatabaseKind = 'pglite' | 'postgres';

/**
 * Lets one refresh run at a time: within the process (a promise chain, because a session-level
 * advisory lock is re-entrant for its own session) and across instances (a PostgreSQL advisory
 * lock). On PostgreSQL the lock lives on a connection reserved for the refresh; PGlite has a
 * single session shared by the whole process, and reserving its only connection would stall
 * every request, so there the lock is taken on that shared session.
 */
export class RefreshLock {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly kind: DatabaseKind,
  ) {}

  /** Runs `work` holding the lock; `undefined` without running it when another instance holds it. */
  async run<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const turn = this.chain.then(() => this.acrossInstances(work));
    this.chain = turn.catch(() => undefined);
    return turn;
  }

  private async acrossInstances<T>(
    work: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.kind === 'pglite') return withSessionLock(this.db, work);
    return this.db.connection().execute((connection) => withSessionLock(connection, work));
  }
}

async function withSessionLock<T>(
  session: Db,
  work: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  const taken = await sql<{
    locked: boolean;
  }>`SELECT pg_try_advisory_lock(${sql.lit(LIST_REFRESH_LOCK_KEY)}, hashtext(current_schema())) AS locked`.execute(
    session,
  );
  if (!taken.rows[0]?.locked) return { ran: false };
  try {
    return { ran: true, value: await work() };
  } finally {
    await sql`SELECT pg_advisory_unlock(${sql.lit(LIST_REFRESH_LOCK_KEY)}, hashtext(current_schema()))`.execute(
      session,
    );
  }
}
