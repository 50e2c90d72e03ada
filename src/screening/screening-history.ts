import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { decodePageCursor, encodePageCursor } from '../store/page-cursor.js';
import type { RiskLevel } from './risk.js';

/** Screenings per page of the account's history (the dashboard's list), and the most a caller may ask. */
export const SCREENING_HISTORY_PAGE_DEFAULT = 25;
export const SCREENING_HISTORY_PAGE_MAX = 100;

/** One line of the history: enough to recognise a screening and open it. */
export interface ScreeningSummary {
  id: string;
  entity: string;
  query_type: string;
  risk_score: number;
  risk_level: RiskLevel;
  flag_count: number;
  /** The screening's `complete`; null for one stored before it was recorded. */
  complete: boolean | null;
  created_at: string;
  /** The caller's own id of the party, when the request gave one. */
  reference: string | null;
  /** How it was made: an API key (`key_id`) or the dashboard's console (`user_id`). */
  key_id: string | null;
  user_id: string | null;
}

/** What the history may be narrowed to; every one given must hold. */
export interface ScreeningHistoryFilter {
  /** Part of the screened name, as normalised as the names are stored (normaliseQuery). */
  name?: string | undefined;
  reference?: string | undefined;
  riskLevel?: RiskLevel | undefined;
  /** Screened at or after this instant, and before that one. */
  from?: Date | undefined;
  until?: Date | undefined;
}

export interface ScreeningHistoryPage {
  data: ScreeningSummary[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/**
 * The account's stored screenings still within retention, newest first, a page at a time (keyset
 * paging on the (account_id, created_at) index, so a deep page costs what the first does).
 */
export async function listScreenings(
  db: Db,
  accountId: string,
  notBefore: Date,
  page: { before?: string | undefined; limit?: number | undefined },
  filter: ScreeningHistoryFilter = {},
): Promise<ScreeningHistoryPage> {
  const limit = Math.min(
    Math.max(1, page.limit ?? SCREENING_HISTORY_PAGE_DEFAULT),
    SCREENING_HISTORY_PAGE_MAX,
  );
  let query = db
    .selectFrom('screenings')
    .select([
      'id',
      'entity',
      'query_type',
      'risk_score',
      'risk_level',
      'created_at',
      'key_id',
      'user_id',
      'reference',
      sql<number>`json_array_length(result->'flags')`.as('flag_count'),
      sql<boolean | null>`(result->>'complete')::boolean`.as('complete'),
    ])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', notBefore);
  // strpos rather than LIKE: a name holding % or _ is searched for as written.
  if (filter.name) query = query.where(sql<boolean>`strpos(entity, ${filter.name}) > 0`);
  if (filter.reference) query = query.where('reference', '=', filter.reference);
  if (filter.riskLevel) query = query.where('risk_level', '=', filter.riskLevel);
  if (filter.from) query = query.where('created_at', '>=', filter.from);
  if (filter.until) query = query.where('created_at', '<', filter.until);
  if (page.before) {
    const [time, id] = decodePageCursor(page.before, '/before');
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', time), eb.and([eb('created_at', '=', time), eb('id', '<', id)])]),
    );
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const data = rows.slice(0, limit).map((row) => ({
    id: row.id,
    entity: row.entity,
    query_type: row.query_type,
    risk_score: row.risk_score,
    risk_level: row.risk_level as RiskLevel,
    flag_count: Number(row.flag_count),
    complete: row.complete,
    created_at: new Date(row.created_at).toISOString(),
    reference: row.reference,
    key_id: row.key_id,
    user_id: row.user_id,
  }));
  const last = data.at(-1);
  return {
    data,
    next_cursor: rows.length > limit && last ? encodePageCursor(last.created_at, last.id) : null,
  };
}
