import { type RawBuilder, type Selectable, sql } from 'kysely';
import { type AuditActor, actorOf, recordChanges } from '../../audit/audited-change.js';
import { isUuid, newId } from '../../ids.js';
import type { Db } from '../../store/database.js';
import { newestFirstPage } from '../../store/page-cursor.js';
import type { Actor, AlertTable } from '../../store/schema.js';
import { outboxStatement } from '../../webhooks/webhook-outbox.js';
import type { ScreenedFlag } from '../screening-result.js';
import { STORED_SCREENINGS } from '../screening-store.js';

export type AlertReason = 'new_match' | 'record_changed' | 'record_removed';
export type AlertStatus = 'open' | 'closed';

/** An alert as the API shows it. */
export interface AlertView {
  id: string;
  monitor_id: string;
  reference: string | null;
  screening_id: string;
  flags: ScreenedFlag[];
  reason: AlertReason;
  list: string;
  list_version: string;
  created_at: string;
  status: AlertStatus;
  note: string | null;
  closed_at: string | null;
  /** Who closed it: the API key or the dashboard user. */
  closed_by: Actor | null;
}

/** An alert a run is about to raise, before it knows whether it was raised already. */
export interface NewAlert {
  accountId: string;
  monitorId: string;
  reference: string | null;
  flagId: string;
  recordHash: string;
  reason: AlertReason;
  list: string;
  listVersion: string;
  /** The list change whose run raises it: one alert per monitor, record version, reason and change. */
  listChangeId: string;
  flag: ScreenedFlag;
}

/** The name of the statement that inserts a screening's alerts (and returns those it inserted). */
const INSERTED_ALERTS = 'monitor_alerts';

/**
 * The statements that raise `alerts` in the statement storing their screening (`screeningId`):
 * each alert row, unless the same monitor already has it for the same record version, reason and
 * list change (the unique index: a run repeated after a crash, or by another instance, raises
 * nothing twice); the records now known to be flagged for the monitor, in their new state only
 * (a record that changes back to an earlier state is news again); and one `monitor.alert` event
 * per alert actually inserted, when a webhook of the account subscribes.
 */
export function raiseAlertStatements(
  accountId: string,
  screeningId: string,
  alerts: readonly NewAlert[],
  now: Date,
): Record<string, RawBuilder<unknown>> {
  const rows = alerts.map((alert) => {
    const id = newId();
    const view: AlertView = {
      id,
      monitor_id: alert.monitorId,
      reference: alert.reference,
      screening_id: screeningId,
      flags: [alert.flag],
      reason: alert.reason,
      list: alert.list,
      list_version: alert.listVersion,
      created_at: now.toISOString(),
      status: 'open',
      note: null,
      closed_at: null,
      closed_by: null,
    };
    const payload = JSON.stringify({
      event: 'monitor.alert',
      alert_id: id,
      timestamp: view.created_at,
      data: view,
    });
    return { id, alert, payload };
  });
  const values = rows.map(
    ({
      id,
      alert,
    }) => sql`(${id}::uuid, ${alert.monitorId}::uuid, ${alert.reference}::text, ${alert.flagId}::text,
      ${alert.recordHash}::text, ${alert.reason}::text, ${alert.list}::text, ${alert.listVersion}::text,
      ${alert.listChangeId}::uuid, ${JSON.stringify([alert.flag])}::jsonb)`,
  );
  const known = rows.flatMap(({ alert }) =>
    alert.reason === 'record_removed'
      ? []
      : [
          sql`(${alert.monitorId}::uuid, ${alert.flagId}::text, ${alert.recordHash}::text, ${JSON.stringify(alert.flag)}::jsonb)`,
        ],
  );
  const events = rows.map(({ id, payload }) => sql`(${newId()}::uuid, ${id}::uuid, ${payload})`);
  const outbox = outboxStatement(accountId, 'monitor.alert', now, {
    id: sql`e.id`,
    subjectId: sql`e.alert_id`,
    payload: sql`e.payload`,
    from: sql`${sql.id(INSERTED_ALERTS)} JOIN (VALUES ${sql.join(events)}) AS e (id, alert_id, payload)
      ON e.alert_id = ${sql.id(INSERTED_ALERTS)}.id`,
  });
  return {
    [INSERTED_ALERTS]: sql`
      INSERT INTO alerts (id, account_id, monitor_id, reference, screening_id, flag_id, record_hash, reason,
        list, list_version, list_change_id, flags, status, created_at)
      SELECT v.id, ${accountId}, v.monitor_id, v.reference, s.id, v.flag_id, v.record_hash, v.reason, v.list,
        v.list_version, v.list_change_id, v.flags, 'open', ${now}
      FROM ${sql.id(STORED_SCREENINGS)} AS s, (VALUES ${sql.join(values)})
        AS v (id, monitor_id, reference, flag_id, record_hash, reason, list, list_version, list_change_id, flags)
      ON CONFLICT (monitor_id, flag_id, record_hash, reason, list_change_id) DO NOTHING
      RETURNING id`,
    ...(known.length > 0
      ? {
          monitor_flags_known: sql`
            INSERT INTO monitor_flags (monitor_id, flag_id, record_hash, flag, seen_at)
            SELECT k.monitor_id, k.flag_id, k.record_hash, k.flag, ${now}
            FROM ${sql.id(STORED_SCREENINGS)}, (VALUES ${sql.join(known)}) AS k (monitor_id, flag_id, record_hash, flag)
            ON CONFLICT DO NOTHING
            RETURNING 1`,
          monitor_flags_superseded: sql`
            DELETE FROM monitor_flags AS m
            USING ${sql.id(STORED_SCREENINGS)}, (VALUES ${sql.join(known)}) AS k (monitor_id, flag_id, record_hash, flag)
            WHERE m.monitor_id = k.monitor_id AND m.flag_id = k.flag_id AND m.record_hash <> k.record_hash
            RETURNING 1`,
        }
      : {}),
    monitor_alert_event: outbox.webhook_event!,
  };
}

const COLUMNS = [
  'id',
  'monitor_id',
  'reference',
  'screening_id',
  'flags',
  'reason',
  'list',
  'list_version',
  'created_at',
  'status',
  'note',
  'closed_at',
  'closed_by',
] as const;

type AlertRow = Pick<Selectable<AlertTable>, (typeof COLUMNS)[number]>;

function fromRow(row: AlertRow): AlertView {
  return {
    id: row.id,
    monitor_id: row.monitor_id,
    reference: row.reference,
    screening_id: row.screening_id,
    flags: row.flags as ScreenedFlag[],
    reason: row.reason as AlertReason,
    list: row.list,
    list_version: row.list_version,
    created_at: new Date(row.created_at).toISOString(),
    status: row.status as AlertStatus,
    note: row.note,
    closed_at: row.closed_at === null ? null : new Date(row.closed_at).toISOString(),
    closed_by: row.closed_by,
  };
}

/** The alerts a screening raised (a run's own, once its statement is written). */
export async function alertsOfScreening(db: Db, screeningId: string): Promise<AlertView[]> {
  const rows = await db
    .selectFrom('alerts')
    .select([...COLUMNS])
    .where('screening_id', '=', screeningId)
    .execute();
  return rows.map(fromRow);
}

export interface AlertFilter {
  status?: AlertStatus | undefined;
  monitorId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** The account's alerts, newest first, a page at a time. */
export async function listAlerts(
  db: Db,
  accountId: string,
  filter: AlertFilter,
): Promise<{ data: AlertView[]; next_cursor: string | null }> {
  let query = db
    .selectFrom('alerts')
    .select([...COLUMNS])
    .where('account_id', '=', accountId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.monitorId !== undefined) {
    if (!isUuid(filter.monitorId)) return { data: [], next_cursor: null };
    query = query.where('monitor_id', '=', filter.monitorId);
  }
  const page = await newestFirstPage(query, filter.cursor, filter.limit);
  return { data: page.rows.map(fromRow), next_cursor: page.next_cursor };
}

/**
 * Closes an open alert with the analyst's note, chained in the audit log in the same transaction;
 * the alert as it is now, or undefined when unknown.
 */
export async function closeAlert(
  db: Db,
  actor: AuditActor,
  id: string,
  note: string,
  now: Date,
): Promise<AlertView | undefined> {
  if (!isUuid(id)) return undefined;
  return db.transaction().execute(async (trx) => {
    const closed = await trx
      .updateTable('alerts')
      .set({ status: 'closed', note, closed_at: now, closed_by: JSON.stringify(actorOf(actor)) })
      .where('id', '=', id)
      .where('account_id', '=', actor.account_id)
      .where('status', '=', 'open')
      .executeTakeFirst();
    if (Number(closed.numUpdatedRows) > 0) await recordChanges(trx, actor, now, 'alert.closed', [id]);
    const row = await trx
      .selectFrom('alerts')
      .select([...COLUMNS])
      .where('id', '=', id)
      .where('account_id', '=', actor.account_id)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  });
}
