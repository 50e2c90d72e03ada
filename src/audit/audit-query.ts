import { ServiceError } from '../errors.js';
import type { Db } from '../store/database.js';
import { decodePageCursor, encodePageCursor } from '../store/page-cursor.js';
import type { AuditLogRow } from '../store/schema.js';
import type { AuditEntry } from './audit-chain.js';

export const AUDIT_PAGE_MAX = 100;
export const AUDIT_PAGE_DEFAULT = 50;

export interface AuditFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  /** An exact status (`404`) or a class (`4xx`). */
  status?: string | undefined;
  /** Rows whose concrete path starts with this. */
  path?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

/** An audit row as the account sees it (the account is implied, the chain is internal). */
export type AuditRecord = Omit<
  AuditEntry,
  'account_id' | 'occurred_at' | 'user_id' | 'action' | 'record_id' | 'record_hash'
> & {
  occurred_at: string;
  user_id: string | null;
  action: string | null;
  record_id: string | null;
  record_hash: string | null;
};

export interface AuditPage {
  data: AuditRecord[];
  next_cursor: string | null;
}

function statusRange(status: string): [number, number] {
  const exact = /^[1-5]\d\d$/.exec(status);
  if (exact) return [Number(status), Number(status)];
  const family = /^([1-5])xx$/i.exec(status);
  if (family) return [Number(family[1]) * 100, Number(family[1]) * 100 + 99];
  throw new ServiceError('validation-failed', 'The status filter is not valid.', [
    { pointer: '/status', detail: 'must be a status code such as 404 or a class such as 4xx' },
  ]);
}

/** The account's own audit rows, newest first, one page at a time. */
export async function listAuditRecords(db: Db, accountId: string, filter: AuditFilter): Promise<AuditPage> {
  const limit = Math.min(filter.limit ?? AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX);
  let query = db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
  if (filter.from) query = query.where('occurred_at', '>=', filter.from);
  if (filter.to) query = query.where('occurred_at', '<', filter.to);
  if (filter.status) {
    const [low, high] = statusRange(filter.status);
    query = query.where('status', '>=', low).where('status', '<=', high);
  }
  if (filter.path) {
    const escaped = filter.path.replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where('path', 'like', `${escaped}%`);
  }
  if (filter.cursor) {
    const [time, id] = decodePageCursor(filter.cursor, '/cursor');
    query = query.where((eb) =>
      eb.or([eb('occurred_at', '<', time), eb.and([eb('occurred_at', '=', time), eb('id', '<', id)])]),
    );
  }
  const rows = await query
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(toAuditRecord),
    next_cursor: rows.length > limit && last ? encodePageCursor(last.occurred_at, last.id) : null,
  };
}

function toAuditRecord(row: AuditLogRow): AuditRecord {
  return {
    id: row.id,
    request_id: row.request_id,
    occurred_at: new Date(row.occurred_at).toISOString(),
    key_id: row.key_id,
    key_prefix: row.key_prefix,
    key_last4: row.key_last4,
    method: row.method,
    route: row.route,
    path: row.path,
    status: row.status,
    latency_ms: row.latency_ms,
    client_ip: row.client_ip,
    user_agent: row.user_agent,
    user_id: row.user_id,
    action: row.action,
    record_id: row.record_id,
    record_hash: row.record_hash,
  };
}
