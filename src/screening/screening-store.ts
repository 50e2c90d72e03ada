import { type RawBuilder, sql } from 'kysely';
import type { UsageSubject } from '../accounts/usage.js';
import type { UsageLedger } from '../accounts/usage-ledger.js';
import { isUuid } from '../ids.js';
import type { Db } from '../store/database.js';
import type { SourceFailure } from './fan-out.js';
import type { EffectiveOptions, QueryType, StoredResult } from './screening-result.js';

export interface ScreeningRecord {
  result: StoredResult;
  /** `result` as JSON, serialised once per screening for the row, the cache and the webhook payload. */
  resultJson: string;
  type: QueryType;
  options: EffectiveOptions;
  sourceErrors: SourceFailure[];
  sourceVersions: Record<string, string>;
}

/** The first instant still inside the retention period. */
export function retentionCutoff(now: Date, retentionMonths: number): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - retentionMonths);
  return cutoff;
}

/**
 * Counts the screening against the quota and stores it, as one atomic statement: a screening is
 * stored exactly when it was counted. `alongside` adds statements to run in that same statement
 * (the webhook outbox: see `ScreeningFollowUp`). Throws `quota-exceeded` (nothing stored) when the
 * month is full.
 */
export async function storeScreening(
  usage: UsageLedger,
  subject: UsageSubject,
  record: ScreeningRecord,
  alongside: Readonly<Record<string, RawBuilder<unknown>>> = {},
): Promise<void> {
  const { result } = record;
  const insert = sql`
    INSERT INTO screenings (id, account_id, key_id, entity, query_type, request_options, result, source_errors,
      source_versions, risk_score, risk_level, created_at)
    SELECT ${result.id}, ${subject.accountId}, ${subject.keyId}, ${result.entity}, ${record.type},
      ${JSON.stringify(record.options)}::jsonb, ${record.resultJson}::jsonb,
      ${JSON.stringify(record.sourceErrors)}::jsonb, ${JSON.stringify(record.sourceVersions)}::jsonb,
      ${result.risk_score}, ${result.risk_level}, ${new Date(result.timestamp)}
    FROM admitted
    RETURNING 1`;
  await usage.count(subject, { stored: insert, ...alongside });
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
    .select('result')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('created_at', '>=', notBefore)
    .executeTakeFirst();
  return row?.result as StoredResult | undefined;
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
