import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { Db } from '../store/database.js';
import { followingCtes, type NamedStatements } from '../store/named-statements.js';
import { PLANS, type PlanId } from './plans.js';

/** The first day of the date's calendar month (UTC), as the `date` column stores it. */
export function monthOf(date: Date): string {
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

/** The first instant of the next calendar month (UTC): when the quota resets. */
export function nextMonthStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}

export interface UsageSubject {
  accountId: string;
  /** The API key counted with the account; null for the dashboard's console, which has none. */
  keyId: string | null;
  plan: PlanId;
  /** The dashboard user behind a console screening (stored with it); absent for the API. */
  userId?: string | null | undefined;
}

export interface Usage {
  tier: PlanId;
  monthly_limit: number | null;
  current_month: { count: number; remaining: number | null; reset_date: string; key_count: number };
}

function quotaExceeded(limit: number, now: Date): ServiceError {
  return new ServiceError(
    'quota-exceeded',
    `The monthly limit of ${limit} screenings is reached; it resets at ${nextMonthStart(now).toISOString()}.`,
  );
}

/** The cheap early check: refuses before any work once the month's count has reached the limit. */
export function assertUnderLimit(subject: UsageSubject, accountCount: number, now: Date): void {
  const limit = PLANS[subject.plan].monthlyScreeningLimit;
  if (limit !== null && accountCount >= limit) throw quotaExceeded(limit, now);
}

/**
 * The check before a request for `requested` screenings at once (a batch, an import of monitors):
 * none left is `quota-exceeded`; fewer than asked is `quota-insufficient`, which says both numbers
 * (and carries them) and ends with `consequence` (what was not done).
 */
export function assertRoomFor(
  subject: UsageSubject,
  accountCount: number,
  requested: number,
  now: Date,
  consequence: string,
): void {
  assertUnderLimit(subject, accountCount, now);
  const limit = PLANS[subject.plan].monthlyScreeningLimit;
  if (limit === null || accountCount + requested <= limit) return;
  const remaining = limit - accountCount;
  throw new ServiceError(
    'quota-insufficient',
    `${figure(requested)} screenings asked, ${figure(remaining)} remain this month (the quota resets at ${nextMonthStart(now).toISOString()}); ${consequence}.`,
    [],
    { requested, remaining },
  );
}

/** A count as the documents write it: 1,560. */
function figure(count: number): string {
  return count.toLocaleString('en-US');
}

/**
 * Counts `amount` screenings (one, or a group of batch items), exactly: the increment is
 * conditional on the count staying within the limit, so concurrent requests at the edge can never
 * be admitted beyond it, and a group is admitted whole or not at all. Everything runs as one
 * statement (atomic without a transaction, one round trip): `alongside` names further statements
 * (`INSERT ... SELECT ... FROM admitted`, run as CTEs under those names, so a later one may read
 * an earlier one's RETURNING), which store the screenings (and what goes with them) only when they
 * were admitted.
 * Throws `quota-exceeded` when the month has no room for them.
 */
export async function countScreening(
  db: Db,
  clock: Clock,
  subject: UsageSubject,
  alongside: NamedStatements = {},
  amount = 1,
): Promise<void> {
  const limit = PLANS[subject.plan].monthlyScreeningLimit;
  const now = clock.now();
  const month = monthOf(now);
  // A console screening has no key: only the account's count grows.
  const keyCounted =
    subject.keyId === null
      ? sql``
      : sql`, key_counted AS (
      INSERT INTO key_usage_counters (key_id, month, count) SELECT ${subject.keyId}, ${month}, ${amount} FROM admitted
      ON CONFLICT (key_id, month) DO UPDATE SET count = key_usage_counters.count + ${amount}
      RETURNING 1
    )`;
  const { rows } = await sql<{ admitted: string }>`
    WITH admitted AS (
      INSERT INTO usage_counters (account_id, month, count)
      SELECT ${subject.accountId}, ${month}, ${amount} WHERE ${limit === null ? sql`TRUE` : sql`${amount} <= ${limit}`}
      ON CONFLICT (account_id, month) DO UPDATE SET count = usage_counters.count + ${amount}
      WHERE ${limit === null ? sql`TRUE` : sql`usage_counters.count + ${amount} <= ${limit}`}
      RETURNING 1
    )${keyCounted}${followingCtes(alongside)}
    SELECT count(*) AS admitted FROM admitted`.execute(db);
  if (Number(rows[0]?.admitted ?? 0) === 0) throw quotaExceeded(limit ?? 0, now);
}

/** The account's and the key's counts of a month, in one round trip. */
export async function readCounts(
  db: Db,
  subject: UsageSubject,
  month: string,
): Promise<{ account: number; key: number }> {
  const { rows } = await sql<{ account_count: number | null; key_count: number | null }>`
    SELECT
      (SELECT count FROM usage_counters WHERE account_id = ${subject.accountId} AND month = ${month}) AS account_count,
      (SELECT count FROM key_usage_counters WHERE key_id = ${subject.keyId}::uuid AND month = ${month}) AS key_count`.execute(
    db,
  );
  return { account: rows[0]?.account_count ?? 0, key: rows[0]?.key_count ?? 0 };
}

export function describeUsage(
  subject: UsageSubject,
  now: Date,
  counts: { account: number; key: number },
): Usage {
  const limit = PLANS[subject.plan].monthlyScreeningLimit;
  return {
    tier: subject.plan,
    monthly_limit: limit,
    current_month: {
      count: counts.account,
      remaining: limit === null ? null : Math.max(0, limit - counts.account),
      reset_date: nextMonthStart(now).toISOString(),
      key_count: counts.key,
    },
  };
}
