import { sql } from 'kysely';
import type { Db } from '../../store/database.js';
import type { RiskLevel } from '../risk.js';
import type { ScreenedFlag } from '../screening-result.js';

/** How far back the review queue looks by default, and the most flags it shows at once. */
export const REVIEW_QUEUE_DAYS_DEFAULT = 30;
export const REVIEW_QUEUE_MAX_FLAGS = 100;

/** The flags waiting, newest first, at most REVIEW_QUEUE_MAX_FLAGS; `more`: older ones wait too. */
export interface ReviewQueue {
  flags: QueuedFlag[];
  more: boolean;
}

/** One flag waiting for an analyst: the flag, and the screening it came from. */
export interface QueuedFlag {
  screeningId: string;
  entity: string;
  reference: string | null;
  riskLevel: RiskLevel;
  screenedAt: string;
  flag: ScreenedFlag;
}

/**
 * The flags no standing decision covers (none for the subject, or one taken on another state of
 * the record) of the account's screenings since `since` whose risk is `medium` or above, newest
 * first. A subject screened again and again raises its record once: only its latest screening's
 * flag is listed.
 */
export async function reviewQueue(db: Db, accountId: string, since: Date): Promise<ReviewQueue> {
  const { rows } = await sql<{
    screening_id: string;
    entity: string;
    reference: string | null;
    risk_level: RiskLevel;
    created_at: Date;
    flag: ScreenedFlag;
  }>`
    SELECT screening_id, entity, reference, risk_level, created_at, flag FROM (
      SELECT DISTINCT ON (s.subject_key, f.value->>'id')
        s.id AS screening_id, s.entity, s.reference, s.risk_level, s.created_at, f.value AS flag
      FROM screenings s, json_array_elements(s.result->'flags') AS f(value)
      WHERE s.account_id = ${accountId} AND s.created_at >= ${since} AND s.subject_key IS NOT NULL
        AND s.risk_level IN ('medium', 'high', 'critical')
        AND NOT EXISTS (
          SELECT 1 FROM decisions d
          WHERE d.account_id = s.account_id AND d.subject_key = s.subject_key AND d.withdrawn_at IS NULL
            AND d.flag_id = f.value->>'id' AND d.record_hash = f.value->'details'->>'record_hash')
      ORDER BY s.subject_key, f.value->>'id', s.created_at DESC, s.id DESC
    ) latest
    ORDER BY created_at DESC, screening_id DESC
    LIMIT ${REVIEW_QUEUE_MAX_FLAGS + 1}`.execute(db);
  const flags = rows.slice(0, REVIEW_QUEUE_MAX_FLAGS).map((row) => ({
    screeningId: row.screening_id,
    entity: row.entity,
    reference: row.reference,
    riskLevel: row.risk_level,
    screenedAt: new Date(row.created_at).toISOString(),
    flag: row.flag,
  }));
  return { flags, more: rows.length > REVIEW_QUEUE_MAX_FLAGS };
}
