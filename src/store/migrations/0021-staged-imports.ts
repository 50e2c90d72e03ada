import { type Kysely, sql } from 'kysely';

/**
 * Imports are stored in stages (docs/monitoring.md): their monitors are written a chunk at a time,
 * each chunk its own short transaction, and stay hidden until the last chunk is in.
 *
 * - `stored_at`: when the import was stored whole and its monitors became visible; null while it is
 *   staged, and for ever for one abandoned. Imports made before were stored whole at once.
 * - `staged_until`: the lease of the instance staging it, renewed by every chunk; an import whose
 *   lease lapsed (its instance died) is abandoned.
 * - `abandoned_at`: when it was given up; its monitors are then deleted (and the deletions chained).
 *
 * The first screenings due are claimed import by import (only an import's monitors are ever due),
 * each import's in time order: the index by time alone would have the claim read a staged
 * import's hidden monitors, every one of them, each time it looks. The embedded database keeps no
 * statistics, so its planner picks any index whose condition fits: the index of first screening
 * times no longer holds the monitors never screened (a run's last pass reads only screened ones),
 * which leaves the claim one index to take.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE monitor_imports
    ADD COLUMN stored_at timestamptz,
    ADD COLUMN staged_until timestamptz,
    ADD COLUMN abandoned_at timestamptz`.execute(db);
  await sql`UPDATE monitor_imports SET stored_at = created_at`.execute(db);
  await sql`DROP INDEX monitors_unscreened_idx`.execute(db);
  await sql`CREATE INDEX monitors_import_due_idx ON monitors (import_id, created_at, id)
    WHERE first_screened_at IS NULL AND first_screening_error IS NULL AND deleted_at IS NULL`.execute(db);
  await sql`DROP INDEX monitors_first_screened_idx`.execute(db);
  await sql`CREATE INDEX monitors_first_screened_idx ON monitors (first_screened_at)
    WHERE deleted_at IS NULL AND first_screened_at IS NOT NULL`.execute(db);
  // The imports not stored (staged or abandoned): few, read by every query that hides their monitors.
  await sql`CREATE INDEX monitor_imports_unstored_idx ON monitor_imports (account_id)
    WHERE stored_at IS NULL`.execute(db);
}
