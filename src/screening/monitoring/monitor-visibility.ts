import { type RawBuilder, sql } from 'kysely';

/**
 * Whether the monitor `alias` names is seen: made alone, or by an import stored whole. The monitors
 * of an import still staged (or abandoned) are hidden from the API, the counts and the first
 * screenings until the import's last chunk makes them visible all at once (staged-import.ts): one
 * row of `monitor_imports` decides for all of them, so no monitor is ever seen without the others.
 */
export function isVisibleMonitor(alias: string): RawBuilder<boolean> {
  const importId = sql.ref(`${alias}.import_id`);
  return sql<boolean>`(${importId} IS NULL
    OR ${importId} NOT IN (SELECT id FROM monitor_imports WHERE stored_at IS NULL))`;
}

/**
 * The monitors the account's staged imports will add (their whole `total`, whatever is staged so
 * far): held as if they were there already, so the plan's limit counts them before they are visible.
 */
export function stagedMonitorsOf(accountId: string): RawBuilder<number> {
  return sql<number>`(SELECT coalesce(sum(total), 0) FROM monitor_imports
    WHERE account_id = ${accountId} AND stored_at IS NULL AND abandoned_at IS NULL)`;
}
