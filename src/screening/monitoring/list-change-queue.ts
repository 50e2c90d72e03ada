import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../store/database.js';

/** A claimed list change: the version, the one it replaced, and how far a run already went. */
export interface ClaimedChange {
  id: string;
  listId: string;
  snapshotId: string;
  previousSnapshotId: string | null;
  createdAt: Date;
  monitorCursor: string | null;
  /** This claim's; a write carrying another (a lapsed claim's) changes nothing. */
  claimToken: string;
  /** Attempts that failed so far (a shutdown is no failure). */
  failures: number;
  lastError: string | null;
}

/**
 * Claims up to `limit` list changes not yet run, for `leaseMs` (FOR UPDATE SKIP LOCKED: every
 * instance claims, none the same change). Only changes whose version, or a later version of the
 * same list, this instance has in service: its screenings must see the records the change added.
 * An instance still serving an older version leaves the change to one that has caught up. The
 * changes of one list run one after the other, in order: a removal run after the relisting that
 * followed it would tell the monitors the wrong last word.
 */
export async function claimChanges(
  db: Db,
  now: Date,
  leaseMs: number,
  inService: readonly string[],
  limit: number,
): Promise<ClaimedChange[]> {
  if (inService.length === 0) return [];
  const until = new Date(now.getTime() + leaseMs);
  const token = randomUUID();
  const { rows } = await sql<{
    id: string;
    list_id: string;
    snapshot_id: string;
    previous_snapshot_id: string | null;
    created_at: Date | string;
    monitor_cursor: string | null;
    attempts: number;
    last_error: string | null;
  }>`
    UPDATE list_changes SET claimed_until = ${until}, claim_token = ${token}
    WHERE id IN (
      SELECT c.id FROM list_changes c
      WHERE c.done_at IS NULL AND (c.claimed_until IS NULL OR c.claimed_until < ${now})
        AND EXISTS (SELECT 1 FROM list_changes served
          WHERE served.list_id = c.list_id AND served.snapshot_id = ANY(${inService}::uuid[])
            AND served.created_at >= c.created_at)
        AND NOT EXISTS (SELECT 1 FROM list_changes earlier
          WHERE earlier.list_id = c.list_id AND earlier.created_at < c.created_at AND earlier.done_at IS NULL)
      ORDER BY c.created_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, list_id, snapshot_id, previous_snapshot_id, created_at, monitor_cursor, attempts,
      last_error`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    listId: r.list_id,
    snapshotId: r.snapshot_id,
    previousSnapshotId: r.previous_snapshot_id,
    createdAt: new Date(r.created_at),
    monitorCursor: r.monitor_cursor,
    claimToken: token,
    failures: r.attempts,
    lastError: r.last_error,
  }));
}

/** Renews a claim's lease; false when the claim was lost (it lapsed and another took it). */
export async function renewClaim(db: Db, change: ClaimedChange, until: Date): Promise<boolean> {
  return updateClaimed(db, change, { claimed_until: until });
}

/** Saves a run's progress (the last monitor done) and renews its claim; false when it was lost. */
export async function saveProgress(
  db: Db,
  change: ClaimedChange,
  cursor: string,
  claimedUntil: Date,
): Promise<boolean> {
  return updateClaimed(db, change, { monitor_cursor: cursor, claimed_until: claimedUntil });
}

export async function markDone(
  db: Db,
  change: ClaimedChange,
  now: Date,
  summary: Record<string, unknown>,
): Promise<boolean> {
  return updateClaimed(db, change, {
    done_at: now,
    claimed_until: null,
    claim_token: null,
    summary: JSON.stringify(summary),
  });
}

/** A failed attempt: counted, why, and not before `retryAt` again (from the page it had reached). */
export async function recordFailure(
  db: Db,
  change: ClaimedChange,
  error: string,
  retryAt: Date,
): Promise<boolean> {
  return updateClaimed(db, change, {
    claimed_until: retryAt,
    claim_token: null,
    last_error: error,
    attempts: change.failures + 1,
  });
}

/** Gives a claim back (a shutdown): the change is due again at once, from its last page. */
export async function releaseClaim(db: Db, change: ClaimedChange): Promise<boolean> {
  return updateClaimed(db, change, { claimed_until: null, claim_token: null });
}

async function updateClaimed(
  db: Db,
  change: ClaimedChange,
  values: {
    claimed_until?: Date | null;
    claim_token?: null;
    monitor_cursor?: string;
    done_at?: Date;
    summary?: string;
    last_error?: string;
    attempts?: number;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('list_changes')
    .set(values)
    .where('id', '=', change.id)
    .where('claim_token', '=', change.claimToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * A monitor was first screened on an instance serving, for some list, an older version than the
 * newest changes of that list (it had not loaded them yet): those changes, if their runs are done,
 * are opened again. Their runs go on from their last page, so only their last pass is done again,
 * which screens the monitors first screened since each change was written: this one among them.
 * Returns how many were opened again (almost always none: one cheap statement).
 */
export async function reopenChangesMissedBy(db: Db, inService: readonly string[]): Promise<number> {
  if (inService.length === 0) return 0;
  const result = await sql`
    UPDATE list_changes c SET done_at = NULL, claimed_until = NULL, claim_token = NULL
    WHERE c.done_at IS NOT NULL AND EXISTS (SELECT 1 FROM list_changes served
      WHERE served.list_id = c.list_id AND served.snapshot_id = ANY(${inService}::uuid[])
        AND served.created_at < c.created_at)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** The embedded database has one process: a claim found at start is a dead process's, free at once. */
export async function releaseChangeClaims(db: Db): Promise<number> {
  const result = await db
    .updateTable('list_changes')
    .set({ claimed_until: null, claim_token: null })
    .where('done_at', 'is', null)
    .where('claimed_until', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
