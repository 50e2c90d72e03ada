import { sql } from 'kysely';
import type { Db } from '../../store/database.js';

/** A claimed list change: the version, the one it replaced, and how far a run already went. */
export interface ClaimedChange {
  id: string;
  listId: string;
  snapshotId: string;
  previousSnapshotId: string | null;
  monitorCursor: string | null;
}

/**
 * Claims up to `limit` list changes not yet run, for `leaseMs` (FOR UPDATE SKIP LOCKED: every
 * instance claims, none the same change). Only changes this instance can run: those whose version
 * it has in service (its screenings see the new records), or that a later version already replaced
 * (which the later change's run brings in).
 */
export async function claimChanges(
  db: Db,
  now: Date,
  leaseMs: number,
  inService: readonly string[],
  limit: number,
): Promise<ClaimedChange[]> {
  const until = new Date(now.getTime() + leaseMs);
  const ids = inService.length > 0 ? inService : ['00000000-0000-0000-0000-000000000000'];
  const { rows } = await sql<{
    id: string;
    list_id: string;
    snapshot_id: string;
    previous_snapshot_id: string | null;
    monitor_cursor: string | null;
  }>`
    UPDATE list_changes SET claimed_until = ${until}, attempts = attempts + 1
    WHERE id IN (
      SELECT c.id FROM list_changes c
      WHERE c.done_at IS NULL AND (c.claimed_until IS NULL OR c.claimed_until < ${now})
        AND (c.snapshot_id = ANY(${ids}::uuid[]) OR EXISTS (SELECT 1 FROM list_changes later
          WHERE later.list_id = c.list_id AND later.created_at > c.created_at))
      ORDER BY c.created_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, list_id, snapshot_id, previous_snapshot_id, monitor_cursor`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    listId: r.list_id,
    snapshotId: r.snapshot_id,
    previousSnapshotId: r.previous_snapshot_id,
    monitorCursor: r.monitor_cursor,
  }));
}

/** Saves a run's progress (the last monitor done) and renews its claim. */
export async function saveProgress(db: Db, id: string, cursor: string, claimedUntil: Date): Promise<void> {
  await db
    .updateTable('list_changes')
    .set({ monitor_cursor: cursor, claimed_until: claimedUntil })
    .where('id', '=', id)
    .execute();
}

export async function markDone(
  db: Db,
  id: string,
  now: Date,
  summary: Record<string, unknown>,
): Promise<void> {
  await db
    .updateTable('list_changes')
    .set({ done_at: now, claimed_until: null, summary: JSON.stringify(summary) })
    .where('id', '=', id)
    .execute();
}

/** The embedded database has one process: a claim found at start is a dead process's, free at once. */
export async function releaseChangeClaims(db: Db): Promise<number> {
  const result = await db
    .updateTable('list_changes')
    .set({ claimed_until: null })
    .where('done_at', 'is', null)
    .where('claimed_until', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
