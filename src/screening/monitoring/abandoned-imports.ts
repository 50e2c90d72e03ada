import { sql } from 'kysely';
import { type AuditActor, recordChanges } from '../../audit/audited-change.js';
import type { Db } from '../../store/database.js';

/**
 * Imports given up while staged (staged-import.ts): nothing of them was ever visible, but their
 * monitors were written, hidden, and chained in the audit log as imported. They are deleted, and
 * the deletions chained, so that the log tells what happened and `audit verify` holds each row to
 * its latest change.
 */

/** Gives up an import still staged; true when this call did. Its room under the limit is free at once. */
export async function abandonImport(db: Db, importId: string, now: Date): Promise<boolean> {
  const result = await sql`UPDATE monitor_imports SET abandoned_at = ${now}, staged_until = NULL
    WHERE id = ${importId} AND stored_at IS NULL AND abandoned_at IS NULL`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/**
 * Gives up the staged imports whose lease lapsed (their instance died), or, with `all`, every
 * staged import: on the embedded database at start, when the process staging them is gone.
 */
export async function abandonDeadImports(db: Db, now: Date, all: boolean): Promise<number> {
  const lapsed = all ? sql`` : sql`AND staged_until < ${now}`;
  const result = await sql`UPDATE monitor_imports SET abandoned_at = ${now}, staged_until = NULL
    WHERE stored_at IS NULL AND abandoned_at IS NULL ${lapsed}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** An abandoned import some of whose hidden monitors are not deleted yet. */
export interface AbandonedImport {
  id: string;
  accountId: string;
  keyId: string | null;
}

export async function abandonedImportsToClean(db: Db, limit: number): Promise<AbandonedImport[]> {
  const { rows } = await sql<{ id: string; account_id: string; key_id: string | null }>`
    SELECT i.id, i.account_id, i.key_id FROM monitor_imports i
    WHERE i.stored_at IS NULL AND i.abandoned_at IS NOT NULL
      AND EXISTS (SELECT 1 FROM monitors m WHERE m.import_id = i.id AND m.deleted_at IS NULL)
    ORDER BY i.abandoned_at
    LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({ id: r.id, accountId: r.account_id, keyId: r.key_id }));
}

/**
 * Deletes up to `limit` of an abandoned import's monitors, chained as `monitor.deleted`, in one
 * transaction; how many. Instances cleaning up the same import take different monitors.
 */
export async function deleteAbandonedMonitors(
  db: Db,
  importId: string,
  actor: AuditActor,
  now: Date,
  limit: number,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string }>`
      UPDATE monitors SET deleted_at = ${now}
      WHERE id IN (
        SELECT id FROM monitors WHERE import_id = ${importId} AND deleted_at IS NULL
        LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id`.execute(trx);
    await recordChanges(
      trx,
      actor,
      now,
      'monitor.deleted',
      rows.map((r) => r.id),
    );
    return rows.length;
  });
}
