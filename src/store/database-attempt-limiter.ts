import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { AttemptLimiter } from './attempt-limiter.js';
import { DailyPurge } from './daily-purge.js';
import type { Db } from './database.js';

/** Windows that have ended are deleted this often (an ended window counts nothing anyway). */
export const ATTEMPT_WINDOW_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The attempt limiter, in the database (also where Redis is set up: a count in Redis fell back to
 * each instance's memory when Redis failed, and a Redis restart erased every lockout): every
 * instance on one PostgreSQL database shares the count. One upsert counts the attempt and reads the count back,
 * and PostgreSQL serialises concurrent upserts of a row, so no two attempts see the same count.
 */
export class DatabaseAttemptLimiter implements AttemptLimiter {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly name: string,
    private readonly maxAttempts: number,
    private readonly windowSeconds: number,
  ) {}

  async take(subject: string): Promise<number | undefined> {
    const now = this.clock.now();
    const ends = new Date(now.getTime() + this.windowSeconds * 1000);
    const { rows } = await sql<{ attempts: number; ends_at: Date }>`
      INSERT INTO attempt_windows AS w (subject, attempts, ends_at)
      VALUES (${this.name + subject}, 1, ${ends})
      ON CONFLICT (subject) DO UPDATE SET
        attempts = CASE WHEN w.ends_at <= ${now} THEN 1 ELSE w.attempts + 1 END,
        ends_at = CASE WHEN w.ends_at <= ${now} THEN EXCLUDED.ends_at ELSE w.ends_at END
      RETURNING attempts, ends_at`.execute(this.db);
    const row = rows[0]!;
    if (row.attempts <= this.maxAttempts) return undefined;
    return Math.max(1, Math.ceil((new Date(row.ends_at).getTime() - now.getTime()) / 1000));
  }

  async giveBack(subject: string): Promise<void> {
    await this.db
      .updateTable('attempt_windows')
      .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
      .where('subject', '=', this.name + subject)
      .where('ends_at', '>', this.clock.now())
      .where('attempts', '>', 0)
      .execute();
  }

  async reset(subject: string): Promise<void> {
    await this.db
      .deleteFrom('attempt_windows')
      .where('subject', '=', this.name + subject)
      .execute();
  }
}

/** Deletes the attempt windows that have ended, hourly. */
export class EndedAttemptWindowPurge extends DailyPurge {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    logger: FastifyBaseLogger,
  ) {
    super(ATTEMPT_WINDOW_PURGE_INTERVAL_MS, logger, 'ended sign-in attempt windows');
  }

  protected async purge(): Promise<number> {
    const result = await this.db
      .deleteFrom('attempt_windows')
      .where('ends_at', '<=', this.clock.now())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
