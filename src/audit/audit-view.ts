import type { Db } from '../store/database.js';
import { type AuditFilter, type AuditPage, type AuditRecord, listAuditRecords } from './audit-query.js';

/** An audit row with the email of the dashboard user behind it (null for API keys, or a user since deleted). */
export type AuditRecordWithUser = AuditRecord & { user_email: string | null };

/**
 * A page of the account's audit log (exactly as `GET /v1/audit` reads it) with the emails of the
 * dashboard users it names, for the dashboard's audit page.
 */
export async function listAuditRecordsWithUsers(
  db: Db,
  accountId: string,
  filter: AuditFilter,
): Promise<Omit<AuditPage, 'data'> & { data: AuditRecordWithUser[] }> {
  const page = await listAuditRecords(db, accountId, filter);
  const userIds = [...new Set(page.data.flatMap((r) => (r.user_id ? [r.user_id] : [])))];
  const users =
    userIds.length === 0
      ? []
      : await db
          .selectFrom('users')
          .select(['id', 'email'])
          .where('account_id', '=', accountId)
          .where('id', 'in', userIds)
          .execute();
  const emails = new Map(users.map((u) => [u.id, u.email]));
  return {
    ...page,
    data: page.data.map((r) => ({ ...r, user_email: r.user_id ? (emails.get(r.user_id) ?? null) : null })),
  };
}
