import { type Selectable, sql } from 'kysely';
import { type AuditActor, actorOf, recordChanges } from '../../audit/audited-change.js';
import { isUuid } from '../../ids.js';
import type { Db } from '../../store/database.js';
import { newestFirstPage } from '../../store/page-cursor.js';
import type { DecisionTable } from '../../store/schema.js';
import type { DecidedBy, DecisionValue } from '../screening-result.js';

/** A decision as stored: on one listed record (`flag_id` in the state `record_hash`), for one subject. */
export type StoredDecision = Omit<DecisionRow, 'decision' | 'key_id' | 'user_id' | 'created_at'> & {
  decision: DecisionValue;
  decided_by: DecidedBy;
  decided_at: string;
};

const COLUMNS = [
  'id',
  'subject_key',
  'reference',
  'entity',
  'screening_id',
  'flag_id',
  'source',
  'list',
  'listed_name',
  'record_hash',
  'decision',
  'note',
  'key_id',
  'user_id',
  'created_at',
] as const;

/** The columns a decision is read from (COLUMNS). */
type DecisionRow = Pick<Selectable<DecisionTable>, (typeof COLUMNS)[number]>;

function fromRow(row: DecisionRow): StoredDecision {
  const { key_id, user_id, created_at, ...rest } = row;
  return {
    ...rest,
    decision: row.decision as DecisionValue,
    decided_by: key_id ? { type: 'api_key', id: key_id } : { type: 'dashboard_user', id: user_id ?? '' },
    decided_at: new Date(created_at).toISOString(),
  };
}

/** The subject's standing decisions (neither withdrawn nor superseded), newest first. */
export async function standingDecisions(
  db: Db,
  accountId: string,
  subjectKey: string,
): Promise<StoredDecision[]> {
  const rows = await db
    .selectFrom('decisions')
    .select([...COLUMNS])
    .where('account_id', '=', accountId)
    .where('subject_key', '=', subjectKey)
    .where('withdrawn_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(fromRow);
}

export interface NewDecision {
  id: string;
  subjectKey: string;
  reference: string | null;
  entity: string;
  screeningId: string;
  flagId: string;
  source: string;
  list: string;
  listedName: string | null;
  recordHash: string;
  decision: DecisionValue;
  note: string;
  at: Date;
}

/**
 * Stores a decision; the subject's earlier standing decision on the same record, if any, is
 * superseded (withdrawn at the same instant, by the decider): one record of one subject has one
 * standing decision. Both are chained in the audit log in the same transaction.
 */
export async function insertDecision(db: Db, decider: AuditActor, d: NewDecision): Promise<StoredDecision> {
  const accountId = decider.account_id;
  const row: DecisionRow = {
    id: d.id,
    subject_key: d.subjectKey,
    reference: d.reference,
    entity: d.entity,
    screening_id: d.screeningId,
    flag_id: d.flagId,
    source: d.source,
    list: d.list,
    listed_name: d.listedName,
    record_hash: d.recordHash,
    decision: d.decision,
    note: d.note,
    key_id: decider.key_id,
    user_id: decider.key_id === null ? decider.user_id : null,
    created_at: d.at,
  };
  await db.transaction().execute(async (trx) => {
    // Two decisions on one record of one subject at once (a double click, two analysts) would
    // each find no standing decision to supersede and both stand: they take turns here instead.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${accountId}\n${d.subjectKey}\n${d.flagId}`}, 0))`.execute(
      trx,
    );
    const superseded = await trx
      .updateTable('decisions')
      .set({ withdrawn_at: d.at, withdrawn_by: JSON.stringify(actorOf(decider)) })
      .where('account_id', '=', accountId)
      .where('subject_key', '=', d.subjectKey)
      .where('flag_id', '=', d.flagId)
      .where('withdrawn_at', 'is', null)
      .returning('id')
      .execute();
    await trx
      .insertInto('decisions')
      .values({ ...row, account_id: accountId, withdrawn_at: null })
      .execute();
    await recordChanges(
      trx,
      decider,
      d.at,
      'decision.superseded',
      superseded.map((s) => s.id),
    );
    await recordChanges(trx, decider, d.at, 'decision.created', [d.id]);
  });
  return fromRow(row);
}

/**
 * Withdraws a standing decision of the account, chained in the audit log in the same
 * transaction; false when there is none with this id.
 */
export async function withdrawDecision(db: Db, actor: AuditActor, id: string, at: Date): Promise<boolean> {
  if (!isUuid(id)) return false;
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('decisions')
      .set({ withdrawn_at: at, withdrawn_by: JSON.stringify(actorOf(actor)) })
      .where('id', '=', id)
      .where('account_id', '=', actor.account_id)
      .where('withdrawn_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await recordChanges(trx, actor, at, 'decision.withdrawn', [id]);
    return true;
  });
}

export interface DecisionFilter {
  reference?: string | undefined;
  source?: string | undefined;
  decision?: DecisionValue | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** The account's standing decisions, newest first, a page at a time (keyset paging, page-cursor.ts). */
export async function listDecisions(
  db: Db,
  accountId: string,
  filter: DecisionFilter,
): Promise<{ data: StoredDecision[]; next_cursor: string | null }> {
  let query = db
    .selectFrom('decisions')
    .select([...COLUMNS])
    .where('account_id', '=', accountId)
    .where('withdrawn_at', 'is', null);
  if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
  if (filter.source !== undefined) query = query.where('source', '=', filter.source);
  if (filter.decision !== undefined) query = query.where('decision', '=', filter.decision);
  const page = await newestFirstPage(query, filter.cursor, filter.limit);
  return { data: page.rows.map(fromRow), next_cursor: page.next_cursor };
}

/** What a decision needs of the screening and the flag it is taken on. */
export interface DecidedFlag {
  subjectKey: string;
  reference: string | null;
  entity: string;
  flag: { id: string; source: string; list: string; details: Record<string, unknown> };
}

/**
 * The flag `flagId` of a stored screening of the account within retention; undefined when the
 * screening is unknown, another account's, past retention, stored before decisions (no subject),
 * or has no such flag.
 */
export async function findDecidableFlag(
  db: Db,
  accountId: string,
  screeningId: string,
  flagId: string,
  notBefore: Date,
): Promise<DecidedFlag | undefined> {
  if (!isUuid(screeningId)) return undefined;
  const { rows } = await sql<{
    subject_key: string;
    reference: string | null;
    entity: string;
    flag: DecidedFlag['flag'];
  }>`
    SELECT s.subject_key, s.reference, s.entity, f.value AS flag
    FROM screenings s, json_array_elements(s.result->'flags') AS f(value)
    WHERE s.id = ${screeningId} AND s.account_id = ${accountId} AND s.created_at >= ${notBefore}
      AND s.subject_key IS NOT NULL AND f.value->>'id' = ${flagId}
    LIMIT 1`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return { subjectKey: row.subject_key, reference: row.reference, entity: row.entity, flag: row.flag };
}

/** The subject of a stored screening of the account; undefined when unknown or stored before decisions. */
export async function subjectOfScreening(
  db: Db,
  accountId: string,
  screeningId: string,
): Promise<string | undefined> {
  if (!isUuid(screeningId)) return undefined;
  const row = await db
    .selectFrom('screenings')
    .select('subject_key')
    .where('id', '=', screeningId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.subject_key ?? undefined;
}
