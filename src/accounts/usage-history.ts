import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { PLANS, type PlanId } from './plans.js';
import { monthOf, nextMonthStart } from './usage.js';

export interface DayCount {
  /** YYYY-MM-DD (UTC). */
  date: string;
  count: number;
}

export interface MonthOfScreenings {
  /** YYYY-MM-01, the first day of the month (UTC). */
  month: string;
  /** Every day of the month, in order; days without screenings (and days to come) count 0. */
  days: DayCount[];
  total: number;
}

/** What the dashboard's usage page shows: the quota, and the stored screenings per day. */
export interface UsageOverview {
  plan: PlanId;
  monthlyLimit: number | null;
  /** Screenings counted against the quota this month (cache hits included). */
  used: number;
  remaining: number | null;
  resetDate: string;
  previousMonth: MonthOfScreenings;
  currentMonth: MonthOfScreenings;
}

function monthStart(date: Date, offsetMonths = 0): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offsetMonths, 1));
}

function daysOf(start: Date, counts: Map<string, number>): MonthOfScreenings {
  const days: DayCount[] = [];
  for (let day = start; day.getUTCMonth() === start.getUTCMonth(); ) {
    const date = day.toISOString().slice(0, 10);
    days.push({ date, count: counts.get(date) ?? 0 });
    day = new Date(day.getTime() + 86_400_000);
  }
  return { month: monthOf(start), days, total: days.reduce((sum, d) => sum + d.count, 0) };
}

/**
 * The quota figures of the current month and the live screenings stored per day (UTC) this month
 * and the last, in two queries. Answers from the result cache count against the quota but are not
 * stored, so the days may add up to less than `used`.
 */
export async function usageOverview(
  db: Db,
  now: Date,
  accountId: string,
  plan: PlanId,
): Promise<UsageOverview> {
  const previous = monthStart(now, -1);
  const current = monthStart(now);
  const next = monthStart(now, 1);
  const [perDay, counter] = await Promise.all([
    sql<{ day: string; n: number }>`
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n
      FROM screenings
      WHERE account_id = ${accountId} AND created_at >= ${previous} AND created_at < ${next}
      GROUP BY 1`.execute(db),
    db
      .selectFrom('usage_counters')
      .select('count')
      .where('account_id', '=', accountId)
      .where('month', '=', monthOf(now))
      .executeTakeFirst(),
  ]);
  const counts = new Map(perDay.rows.map((row) => [row.day, Number(row.n)]));
  const limit = PLANS[plan].monthlyScreeningLimit;
  const used = counter?.count ?? 0;
  return {
    plan,
    monthlyLimit: limit,
    used,
    remaining: limit === null ? null : Math.max(0, limit - used),
    resetDate: nextMonthStart(now).toISOString(),
    previousMonth: daysOf(previous, counts),
    currentMonth: daysOf(current, counts),
  };
}
