import { type Selectable, sql } from 'kysely';
import type { PlanId } from '../../accounts/plans.js';
import { type AuditActor, recordChanges } from '../../audit/audited-change.js';
import { isUuid } from '../../ids.js';
import type { Db } from '../../store/database.js';
import { newestFirstPage } from '../../store/page-cursor.js';
import type { MonitorTable } from '../../store/schema.js';
import type { ScreeningRequest } from '../screening-request.js';
import type { ScreenedFlag } from '../screening-result.js';
import { isVisibleMonitor, stagedMonitorsOf } from './monitor-visibility.js';

/** A monitor as stored: the request it screens with, and whose it is. */
export interface StoredMonitor {
  id: string;
  accountId: string;
  keyId: string | null;
  reference: string | null;
  subjectKey: string;
  entity: string;
  queryType: string;
  request: ScreeningRequest;
  createdAt: Date;
  /** When its first screening was done (it is watched from then on); null while due or failed. */
  firstScreenedAt: Date | null;
  /** Null while its first screening is due (an imported monitor), or when it failed. */
  firstScreeningId: string | null;
  /** The problem type its first screening failed with: it is then not watched. */
  firstScreeningError: string | null;
}

/** A live monitor as a run reads it: with its account's plan and standing. */
export interface RunMonitor extends StoredMonitor {
  plan: PlanId;
  accountActive: boolean;
}

/** A monitor made alone, with its first screening done. */
export interface NewMonitor extends StoredMonitor {
  firstScreeningId: string;
}

/**
 * Stores a monitor and what its first screening flagged, chained in the audit log, in the
 * caller's transaction (which counted the account's monitors under its lock, and counts the first
 * screening).
 */
export async function insertMonitor(
  trx: Db,
  monitor: NewMonitor,
  flags: readonly ScreenedFlag[],
  actor: AuditActor,
): Promise<void> {
  await trx
    .insertInto('monitors')
    .values({
      id: monitor.id,
      account_id: monitor.accountId,
      key_id: monitor.keyId,
      reference: monitor.reference,
      subject_key: monitor.subjectKey,
      entity: monitor.entity,
      query_type: monitor.queryType,
      request: JSON.stringify(monitor.request),
      created_at: monitor.createdAt,
      first_screened_at: monitor.createdAt,
      first_screening_id: monitor.firstScreeningId,
    })
    .execute();
  if (flags.length > 0) {
    await trx
      .insertInto('monitor_flags')
      .values(
        flags.map((flag) => ({
          monitor_id: monitor.id,
          flag_id: flag.id,
          record_hash: String(flag.details.record_hash),
          flag: JSON.stringify(flag),
          seen_at: monitor.createdAt,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  await recordChanges(trx, actor, monitor.createdAt, 'monitor.created', [monitor.id]);
}

/**
 * The monitors the account holds, counted with its row locked until the transaction ends:
 * creations and imports of one account count one after the other, so none goes over the plan's
 * limit.
 */
export async function lockedMonitorCount(trx: Db, accountId: string): Promise<number> {
  // NO KEY UPDATE: the account's screenings (whose foreign key takes KEY SHARE) go on meanwhile.
  await sql`SELECT 1 FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`.execute(trx);
  return monitorCount(trx, accountId);
}

/**
 * The monitors the account holds: its live visible ones and those its staged imports will add, in
 * one statement (one snapshot: an import made visible meanwhile is counted once). Unlocked, a check
 * before the work; the locked count decides.
 */
export async function monitorCount(db: Db, accountId: string): Promise<number> {
  const { rows } = await sql<{ count: string }>`
    SELECT (SELECT count(*) FROM monitors m
      WHERE m.account_id = ${accountId} AND m.deleted_at IS NULL AND ${isVisibleMonitor('m')})
      + ${stagedMonitorsOf(accountId)} AS count`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

const COLUMNS = [
  'monitors.id',
  'monitors.account_id',
  'monitors.key_id',
  'monitors.reference',
  'monitors.subject_key',
  'monitors.entity',
  'monitors.query_type',
  'monitors.request',
  'monitors.created_at',
  'monitors.first_screened_at',
  'monitors.first_screening_id',
  'monitors.first_screening_error',
] as const;

type MonitorRow = Pick<
  Selectable<MonitorTable>,
  | 'id'
  | 'account_id'
  | 'key_id'
  | 'reference'
  | 'subject_key'
  | 'entity'
  | 'query_type'
  | 'request'
  | 'created_at'
  | 'first_screened_at'
  | 'first_screening_id'
  | 'first_screening_error'
>;

function fromRow(row: MonitorRow): StoredMonitor {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    reference: row.reference,
    subjectKey: row.subject_key,
    entity: row.entity,
    queryType: row.query_type,
    request: row.request as ScreeningRequest,
    createdAt: new Date(row.created_at),
    firstScreenedAt: row.first_screened_at === null ? null : new Date(row.first_screened_at),
    firstScreeningId: row.first_screening_id,
    firstScreeningError: row.first_screening_error,
  };
}

export async function findMonitor(db: Db, accountId: string, id: string): Promise<StoredMonitor | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db
    .selectFrom('monitors')
    .select([...COLUMNS])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where(isVisibleMonitor('monitors'))
    .executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export interface MonitorFilter {
  reference?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** The account's live monitors, newest first, a page at a time. */
export async function listMonitors(
  db: Db,
  accountId: string,
  filter: MonitorFilter,
): Promise<{ data: StoredMonitor[]; next_cursor: string | null }> {
  let query = db
    .selectFrom('monitors')
    .select([...COLUMNS])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where(isVisibleMonitor('monitors'));
  if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
  const page = await newestFirstPage(query, filter.cursor, filter.limit);
  return { data: page.rows.map(fromRow), next_cursor: page.next_cursor };
}

/**
 * Stops a monitor (chained in the audit log in the same transaction): it is no longer screened,
 * and its alerts stay. False when there is none.
 */
export async function deleteMonitor(db: Db, actor: AuditActor, id: string, now: Date): Promise<boolean> {
  if (!isUuid(id)) return false;
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('monitors')
      .set({ deleted_at: now })
      .where('id', '=', id)
      .where('account_id', '=', actor.account_id)
      .where('deleted_at', 'is', null)
      .where(isVisibleMonitor('monitors'))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await recordChanges(trx, actor, now, 'monitor.deleted', [id]);
    return true;
  });
}

/**
 * Live, watched monitors (first screened) of every account after `after` in id order, `limit` of
 * them: a run's next page. With `firstScreenedSince`, only those first screened since then. (A
 * staged import's monitors are hidden from the first screenings, so none of them is watched.)
 */
export async function runMonitorsPage(
  db: Db,
  after: string | null,
  limit: number,
  firstScreenedSince?: Date,
): Promise<RunMonitor[]> {
  let query = db
    .selectFrom('monitors')
    .innerJoin('accounts', 'accounts.id', 'monitors.account_id')
    .select([...COLUMNS, 'accounts.plan', 'accounts.status'])
    .where('monitors.deleted_at', 'is', null);
  query =
    firstScreenedSince === undefined
      ? query.where('monitors.first_screened_at', 'is not', null)
      : query.where('monitors.first_screened_at', '>=', firstScreenedSince);
  if (after !== null) query = query.where('monitors.id', '>', after);
  const rows = await query.orderBy('monitors.id').limit(limit).execute();
  return rows.map((row) => ({
    ...fromRow(row),
    plan: row.plan as PlanId,
    accountActive: row.status === 'active',
  }));
}

/** Whether any account watches any monitor: without one, a list change has nothing to screen. */
export async function anyWatchedMonitor(db: Db): Promise<boolean> {
  const row = await db
    .selectFrom('monitors')
    .select('id')
    .where('deleted_at', 'is', null)
    .where('first_screened_at', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The monitor no longer knows these records: they left the list (a relisting is news again). */
export async function forgetFlags(db: Db, monitorId: string, flagIds: readonly string[]): Promise<void> {
  if (flagIds.length === 0) return;
  await db
    .deleteFrom('monitor_flags')
    .where('monitor_id', '=', monitorId)
    .where(sql<boolean>`flag_id = ANY(${flagIds}::text[])`)
    .execute();
}

/**
 * Of these monitors, those known to be flagged for one of these records (in any state). The page's
 * flags are read by monitor alone and filtered here: a change of a large list (or a list's first
 * version) names too many records to send with each page.
 */
export async function monitorsFlaggedFor(
  db: Db,
  monitorIds: readonly string[],
  flagIds: ReadonlySet<string>,
): Promise<Map<string, Map<string, { recordHash: string; flag: ScreenedFlag }[]>>> {
  const known = new Map<string, Map<string, { recordHash: string; flag: ScreenedFlag }[]>>();
  if (monitorIds.length === 0 || flagIds.size === 0) return known;
  const rows = await db
    .selectFrom('monitor_flags')
    .select(['monitor_id', 'flag_id', 'record_hash', 'flag', 'seen_at'])
    // One array parameter: a page holds more monitors than a statement may have parameters.
    .where(sql<boolean>`monitor_id = ANY(${monitorIds}::uuid[])`)
    .orderBy('seen_at')
    .execute();
  for (const row of rows) {
    if (!flagIds.has(row.flag_id)) continue;
    const byFlag = known.get(row.monitor_id) ?? new Map();
    known.set(row.monitor_id, byFlag);
    const states = byFlag.get(row.flag_id) ?? [];
    states.push({ recordHash: row.record_hash, flag: row.flag as unknown as ScreenedFlag });
    byFlag.set(row.flag_id, states);
  }
  return known;
}
