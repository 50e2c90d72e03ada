import { sql } from 'kysely';
import { type AuditActor, recordChanges } from '../../audit/audited-change.js';
import { newId } from '../../ids.js';
import type { Db } from '../../store/database.js';
import type { ScreeningRequest } from '../screening-request.js';
import { abandonImport } from './abandoned-imports.js';
import { lockedMonitorCount } from './monitor-store.js';
import { MONITOR_IMPORT_CHUNK, MONITOR_IMPORT_STAGING_LEASE_MS } from './monitoring-policy.js';

/** One party of an import, checked and ready to be stored as a monitor. */
export interface ImportedMonitor {
  reference: string | null;
  subjectKey: string;
  entity: string;
  queryType: string;
  request: ScreeningRequest;
}

export interface ImportEntry {
  id: string;
  accountId: string;
  keyId: string | null;
  createdAt: Date;
}

/** The import was abandoned while it was staged (its lease lapsed): nothing of it was imported. */
class ImportAbandoned extends Error {}

/**
 * Stores an import in stages, so that it never holds the database for long (on the embedded
 * database, its one session): the import is staged (its monitors hidden) after the plan's limit is
 * checked under the account's lock, with its whole size held against the limit; its monitors and
 * their `monitor.imported` audit rows are written MONITOR_IMPORT_CHUNK at a time, each chunk its own
 * transaction; the last step makes all of them visible at once. So it is still taken whole or not
 * at all: one that fails on the way is abandoned, and its hidden monitors are deleted (chained) by
 * the AbandonedImportWorker; one whose instance dies is abandoned when its lease lapses (on the
 * embedded database, at the next start). Refused (false) when the account would then hold more
 * than `max` monitors (`null`: no limit). `now` gives each lease its start.
 */
export async function storeImport(
  db: Db,
  entry: ImportEntry,
  monitors: readonly ImportedMonitor[],
  max: number | null,
  actor: AuditActor,
  now: () => Date,
): Promise<boolean> {
  if (!(await stageImport(db, entry, monitors.length, max, now()))) return false;
  try {
    for (let at = 0; at < monitors.length; at += MONITOR_IMPORT_CHUNK) {
      await storeChunk(db, entry, monitors.slice(at, at + MONITOR_IMPORT_CHUNK), actor, now());
    }
    await makeVisible(db, entry.id, now());
    return true;
  } catch (error) {
    // Given up now rather than when its lease lapses: its room under the limit is free at once.
    await abandonImport(db, entry.id, now()).catch(() => undefined);
    throw error;
  }
}

/** The import's row, staged, once its size fits under the limit (counted under the account's lock). */
async function stageImport(db: Db, entry: ImportEntry, total: number, max: number | null, now: Date) {
  return db.transaction().execute(async (trx) => {
    if (max !== null && (await lockedMonitorCount(trx, entry.accountId)) + total > max) return false;
    await trx
      .insertInto('monitor_imports')
      .values({
        id: entry.id,
        account_id: entry.accountId,
        key_id: entry.keyId,
        total,
        created_at: entry.createdAt,
        staged_until: leaseFrom(now),
      })
      .execute();
    return true;
  });
}

/**
 * One chunk of the import's monitors, hidden, chained in the audit log with their hashes, in one
 * transaction that first renews the import's lease: a chunk of an import abandoned meanwhile is
 * not written (the renewal locks the import's row, so it cannot be abandoned while the chunk is).
 */
async function storeChunk(
  db: Db,
  entry: ImportEntry,
  chunk: readonly ImportedMonitor[],
  actor: AuditActor,
  now: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const renewed = await sql`UPDATE monitor_imports SET staged_until = ${leaseFrom(now)}
      WHERE id = ${entry.id} AND stored_at IS NULL AND abandoned_at IS NULL`.execute(trx);
    if (Number(renewed.numAffectedRows ?? 0) === 0)
      throw new ImportAbandoned(`import ${entry.id} was abandoned`);
    const ids = chunk.map(() => newId());
    await trx
      .insertInto('monitors')
      .values(
        chunk.map((monitor, i) => ({
          id: ids[i]!,
          account_id: entry.accountId,
          key_id: entry.keyId,
          reference: monitor.reference,
          subject_key: monitor.subjectKey,
          entity: monitor.entity,
          query_type: monitor.queryType,
          request: JSON.stringify(monitor.request),
          created_at: entry.createdAt,
          import_id: entry.id,
        })),
      )
      .execute();
    await recordChanges(trx, actor, entry.createdAt, 'monitor.imported', ids);
  });
}

/** Every monitor of the import becomes visible (and due for its first screening) at once. */
async function makeVisible(db: Db, importId: string, now: Date): Promise<void> {
  const stored = await sql`UPDATE monitor_imports SET stored_at = ${now}, staged_until = NULL
    WHERE id = ${importId} AND stored_at IS NULL AND abandoned_at IS NULL`.execute(db);
  if (Number(stored.numAffectedRows ?? 0) === 0)
    throw new ImportAbandoned(`import ${importId} was abandoned`);
}

function leaseFrom(now: Date): Date {
  return new Date(now.getTime() + MONITOR_IMPORT_STAGING_LEASE_MS);
}
