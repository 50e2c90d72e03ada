import { sql } from 'kysely';
import type { Db } from '../../store/database.js';

/**
 * The name each of these monitors of the account screens (deleted ones too: their alerts stay),
 * by monitor id: the query as the customer typed it, else (a monitor of identifiers alone) the
 * screened entity. Read by primary key: an alert names only its monitor, and a page of alerts
 * needs its monitors' names in one query.
 */
export async function monitorSubjects(
  db: Db,
  accountId: string,
  monitorIds: readonly string[],
): Promise<Map<string, string>> {
  if (monitorIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('monitors')
    .select(['id', sql<string>`coalesce(request->>'query', entity)`.as('name')])
    .where(sql<boolean>`id = ANY(${[...new Set(monitorIds)]}::uuid[])`)
    .where('account_id', '=', accountId)
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
