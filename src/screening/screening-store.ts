import { type RawBuilder, sql } from 'kysely';
import type { UsageSubject } from '../accounts/usage.js';
import type { UsageLedger } from '../accounts/usage-ledger.js';
import { isUuid } from '../ids.js';
import type { Db } from '../store/database.js';
import type { SourceFailure } from './fan-out.js';
import {
  withFailuresOfStoredErrors,
  withFlagIds,
  withRequestUnrecorded,
  withStaleSources,
} from './legacy-results.js';
import type { EffectiveOptions, QueryType, StoredResult } from './screening-result.js';

export interface ScreeningRecord {
  result: StoredResult;
  /** `result` as UTF-8 JSON (`encodeResult`), encoded once for the row (and the webhook body made from it), the cache and the answer. */
  resultBytes: Buffer;
  type: QueryType;
  options: EffectiveOptions;
  sourceErrors: SourceFailure[];
  sourceVersions: Record<string, string>;
  /** Whom the screening is about (screening-subject.ts): decisions on its flags belong to it. */
  subjectKey: string;
  reference: string | undefined;
  /** The request whose audit row records the screening: `audit verify` holds the row to the log by it. */
  requestId: string;
}

/**
 * The name of the statement that stores live screenings, within the statement that counts them:
 * statements run alongside may read the rows it stored from it (`id`, `result`).
 */
export const STORED_SCREENINGS = 'stored';

/** The first instant still inside the retention period. */
export function retentionCutoff(now: Date, retentionMonths: number): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - retentionMonths);
  return cutoff;
}

/**
 * Counts the screenings against the quota and stores them, as one atomic statement: a screening is
 * stored exactly when it was counted, and a group of them (batch items) is admitted whole or not at
 * all. `counted` is how many to count: the stored records and any cache hits that go with them.
 * `alongside` adds statements to run in that same statement (the webhook outbox, batch items: see
 * `ScreeningFollowUp`). Throws `quota-exceeded` (nothing stored) when the month has no room.
 * `within`: a transaction of the caller's to run in (see `UsageLedger.count`).
 */
export async function storeScreenings(
  usage: UsageLedger,
  subject: UsageSubject,
  records: readonly ScreeningRecord[],
  counted: number,
  alongside: Readonly<Record<string, RawBuilder<unknown>>> = {},
  within?: Db,
): Promise<void> {
  if (records.length === 0) {
    await usage.count(subject, alongside, counted, within);
    return;
  }
  const rows = records.map(
    // A buffer parameter goes in binary form, which for `json` is its UTF-8 text, checked as text is
    // (`json_recv`); for `jsonb` it would not be (its binary form starts with a version byte).
    ({
      result,
      resultBytes,
      type,
      options,
      sourceErrors,
      sourceVersions,
      subjectKey,
      reference,
      requestId,
    }) => sql`(
      ${result.id}::uuid, ${result.entity}, ${type}, ${JSON.stringify(options)}::jsonb, ${resultBytes}::json,
      ${JSON.stringify(sourceErrors)}::jsonb, ${JSON.stringify(sourceVersions)}::jsonb, ${result.risk_score}::int,
      ${result.risk_level}, ${new Date(result.timestamp)}::timestamptz, ${subjectKey}::text, ${reference ?? null}::text,
      ${requestId}::text)`,
  );
  const insert = sql`
    INSERT INTO screenings (id, account_id, key_id, user_id, entity, query_type, request_options, result,
      source_errors, source_versions, risk_score, risk_level, created_at, subject_key, reference, request_id)
    SELECT v.id, ${subject.accountId}, ${subject.keyId}::uuid, ${subject.userId ?? null}::uuid, v.entity, v.query_type, v.request_options, v.result,
      v.source_errors, v.source_versions, v.risk_score, v.risk_level, v.created_at, v.subject_key, v.reference, v.request_id
    FROM admitted, (VALUES ${sql.join(rows)}) AS v (id, entity, query_type, request_options, result, source_errors,
      source_versions, risk_score, risk_level, created_at, subject_key, reference, request_id)
    RETURNING id, result`;
  await usage.count(subject, { [STORED_SCREENINGS]: insert, ...alongside }, counted, within);
}

/** A stored screening of the account, unless unknown, malformed, another account's, or past retention. */
export async function findScreening(
  db: Db,
  accountId: string,
  id: string,
  notBefore: Date,
): Promise<StoredResult | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db
    .selectFrom('screenings')
    .select(['result', 'source_errors'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('created_at', '>=', notBefore)
    .executeTakeFirst();
  if (!row) return undefined;
  return withRequestUnrecorded(
    withStaleSources(
      withFlagIds(
        withFailuresOfStoredErrors(row.result as StoredResult, row.source_errors as SourceFailure[]),
      ),
    ),
  );
}

/** Deletes screenings older than the cutoff, a bounded batch at a time; returns how many went. */
export async function purgeScreenings(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await sql`
      DELETE FROM screenings WHERE id IN (
        SELECT id FROM screenings WHERE created_at < ${cutoff} ORDER BY created_at LIMIT ${batchSize}
      )`.execute(db);
    const n = Number(deleted.numAffectedRows ?? 0);
    total += n;
    if (n < batchSize) return total;
  }
}
