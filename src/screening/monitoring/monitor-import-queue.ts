import { type RawBuilder, sql } from 'kysely';
import type { PlanId } from '../../accounts/plans.js';
import type { Db } from '../../store/database.js';
import type { ScreeningRequest } from '../screening-request.js';
import type { StoredResult } from '../screening-result.js';
import { MONITOR_FIRST_SCREENING_LEASE_MS } from './monitoring-policy.js';

/** A monitor whose first screening this instance has claimed. */
export interface UnscreenedMonitor {
  id: string;
  importId: string | null;
  accountId: string;
  keyId: string | null;
  plan: PlanId;
  accountActive: boolean;
  request: ScreeningRequest;
}

/**
 * Claims up to `limit` monitors whose first screening is due, oldest import first, for a lease
 * (`FOR UPDATE SKIP LOCKED`: instances claim side by side, never the same monitor). A claim whose
 * lease lapsed (its instance died) is due again. Only an import's monitors are ever due (one made
 * alone is screened as it is made), and only once the import is stored whole: the monitors are
 * taken import by import (migration 0021), so a staged import's hidden ones are never read.
 */
export async function claimUnscreened(db: Db, now: Date, limit: number): Promise<UnscreenedMonitor[]> {
  const imports = await db
    .selectFrom('monitor_imports')
    .select('id')
    .where('stored_at', 'is not', null)
    .where('completed_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const claimed: UnscreenedMonitor[] = [];
  for (const { id } of imports) {
    if (claimed.length === limit) break;
    claimed.push(...(await claimOfImport(db, id, now, limit - claimed.length)));
  }
  return claimed;
}

async function claimOfImport(
  db: Db,
  importId: string,
  now: Date,
  limit: number,
): Promise<UnscreenedMonitor[]> {
  const until = new Date(now.getTime() + MONITOR_FIRST_SCREENING_LEASE_MS);
  const { rows } = await sql<{
    id: string;
    import_id: string | null;
    account_id: string;
    key_id: string | null;
    plan: PlanId;
    status: string;
    request: ScreeningRequest;
  }>`
    WITH picked AS (
      SELECT id FROM monitors
      WHERE import_id = ${importId}
        AND first_screened_at IS NULL AND first_screening_error IS NULL AND deleted_at IS NULL
        AND (claimed_until IS NULL OR claimed_until < ${now})
      ORDER BY created_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE monitors m SET claimed_until = ${until}
    FROM picked, accounts a
    WHERE m.id = picked.id AND a.id = m.account_id
    RETURNING m.id, m.import_id, m.account_id, m.key_id, a.plan, a.status, m.request`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    importId: r.import_id,
    accountId: r.account_id,
    keyId: r.key_id,
    plan: r.plan,
    accountActive: r.status === 'active',
    request: r.request,
  }));
}

/**
 * The statements recording monitors' first screenings, run inside the statement that counts them
 * (`FROM admitted`): a monitor is watched from exactly when its first screening is counted, and
 * knows what it flagged. A monitor screened already (a lapsed claim done twice) is left as it was.
 */
export function firstScreenedStatements(
  screened: readonly { monitor: UnscreenedMonitor; result: StoredResult }[],
  now: Date,
): Record<string, RawBuilder<unknown>> {
  const rows = screened.map(({ monitor, result }) => sql`(${monitor.id}::uuid, ${result.id}::uuid)`);
  const flags = screened.flatMap(({ monitor, result }) =>
    result.flags.map(
      (flag) =>
        sql`(${monitor.id}::uuid, ${flag.id}::text, ${String(flag.details.record_hash)}::text, ${JSON.stringify(flag)}::jsonb)`,
    ),
  );
  return {
    monitors_first_screened: sql`
      UPDATE monitors SET first_screened_at = ${now}, first_screening_id = v.screening_id, claimed_until = NULL
      FROM admitted, (VALUES ${sql.join(rows)}) AS v (id, screening_id)
      WHERE monitors.id = v.id AND monitors.first_screened_at IS NULL
      RETURNING 1`,
    ...(flags.length > 0
      ? {
          monitors_first_flags: sql`
            INSERT INTO monitor_flags (monitor_id, flag_id, record_hash, flag, seen_at)
            SELECT k.monitor_id, k.flag_id, k.record_hash, k.flag, ${now}
            FROM admitted, (VALUES ${sql.join(flags)}) AS k (monitor_id, flag_id, record_hash, flag)
            ON CONFLICT DO NOTHING
            RETURNING 1`,
        }
      : {}),
  };
}

/**
 * Monitors whose first screening could not be done (the month's quota reached, the account
 * suspended, the request no longer valid for the plan): not watched, with the problem type.
 */
export async function markFirstScreeningFailed(
  db: Db,
  failed: readonly { monitorId: string; problem: string }[],
): Promise<void> {
  if (failed.length === 0) return;
  const rows = failed.map(({ monitorId, problem }) => sql`(${monitorId}::uuid, ${problem}::text)`);
  await sql`UPDATE monitors SET first_screening_error = v.problem, claimed_until = NULL
    FROM (VALUES ${sql.join(rows)}) AS v (id, problem)
    WHERE monitors.id = v.id AND monitors.first_screened_at IS NULL`.execute(db);
}

/** Monitors whose first screening failed for a passing reason: due again at `at`. */
export async function retryFirstScreeningAt(db: Db, monitorIds: readonly string[], at: Date): Promise<void> {
  if (monitorIds.length === 0) return;
  await sql`UPDATE monitors SET claimed_until = ${at}
    WHERE id = ANY(${monitorIds}::uuid[]) AND first_screened_at IS NULL`.execute(db);
}

/** Closes an import none of whose monitors is still due; true when this call closed it. */
export async function closeImportIfDone(db: Db, importId: string, now: Date): Promise<boolean> {
  const result = await sql`UPDATE monitor_imports SET completed_at = ${now}
    WHERE id = ${importId} AND completed_at IS NULL AND NOT EXISTS (
      SELECT 1 FROM monitors WHERE import_id = ${importId} AND first_screened_at IS NULL
        AND first_screening_error IS NULL AND deleted_at IS NULL)`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** An import as the API shows it: how far its first screenings went. */
export interface ImportView {
  id: string;
  status: 'processing' | 'completed';
  total: number;
  screened: number;
  failed: number;
  created_at: string;
  completed_at: string | null;
}

/** An import stored whole (one staged or abandoned is not found: nothing of it was imported). */
export async function findImport(db: Db, accountId: string, id: string): Promise<ImportView | undefined> {
  const { rows } = await sql<{
    id: string;
    total: number;
    created_at: Date | string;
    completed_at: Date | string | null;
    screened: string;
    failed: string;
    due: string;
  }>`
    SELECT i.id, i.total, i.created_at, i.completed_at,
      count(*) FILTER (WHERE m.first_screened_at IS NOT NULL) AS screened,
      count(*) FILTER (WHERE m.first_screening_error IS NOT NULL) AS failed,
      count(*) FILTER (WHERE m.first_screened_at IS NULL AND m.first_screening_error IS NULL
        AND m.deleted_at IS NULL) AS due
    FROM monitor_imports i LEFT JOIN monitors m ON m.import_id = i.id
    WHERE i.id = ${id} AND i.account_id = ${accountId} AND i.stored_at IS NOT NULL
    GROUP BY i.id`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  // Done when nothing is due, whether or not the last group closed it (it may have died first,
  // or the last monitors due were deleted).
  const done = row.completed_at !== null || Number(row.due) === 0;
  return {
    id: row.id,
    status: done ? 'completed' : 'processing',
    total: Number(row.total),
    screened: Number(row.screened),
    failed: Number(row.failed),
    created_at: new Date(row.created_at).toISOString(),
    completed_at: row.completed_at === null ? null : new Date(row.completed_at).toISOString(),
  };
}

/** The embedded database has one process: claims found at start are a dead process's, free at once. */
export async function releaseFirstScreeningClaims(db: Db): Promise<number> {
  const result = await db
    .updateTable('monitors')
    .set({ claimed_until: null })
    .where('first_screened_at', 'is', null)
    .where('claimed_until', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
