import { createHash } from 'node:crypto';
import type { AuditLogRow } from '../store/schema.js';

/** The `prev_hash` of the first row of every chain. */
export const GENESIS_HASH = '0'.repeat(64);
/** Requests without a known account (unknown keys, unauthenticated calls) share this chain. */
export const ANONYMOUS_CHAIN_ID = '00000000-0000-0000-0000-000000000000';

/** What is recorded of one request: the stored row without its chain bookkeeping. */
export type AuditEntry = Omit<
  AuditLogRow,
  | 'chain_id'
  | 'seq'
  | 'prev_hash'
  | 'hash'
  | 'occurred_at'
  | 'user_id'
  | 'action'
  | 'record_id'
  | 'record_hash'
> & {
  occurred_at: Date;
  /** The dashboard user behind the request; absent for API-key and operator requests. */
  user_id?: string | null;
  /** On the row of a change: what was done to which row, and that row's hash afterwards. */
  action?: string | null;
  record_id?: string | null;
  record_hash?: string | null;
};

/**
 * The hash of a row: SHA-256 over the previous row's hash, the row's position in its chain and
 * every recorded field in a fixed order. Editing any field, or removing or reordering rows,
 * changes the hashes that follow.
 */
export function auditRowHash(prevHash: string, seq: number, entry: AuditEntry): string {
  const content = JSON.stringify([
    seq,
    entry.id,
    entry.request_id,
    entry.occurred_at.toISOString(),
    entry.account_id,
    entry.key_id,
    entry.key_prefix,
    entry.key_last4,
    entry.method,
    entry.route,
    entry.path,
    entry.status,
    entry.latency_ms,
    entry.client_ip,
    entry.user_agent,
    // Only dashboard requests have a user: rows without one hash exactly as they did before the
    // column existed, so older chains still verify.
    ...(entry.user_id ? [entry.user_id] : []),
    // Likewise only the rows of changes have an action.
    ...(entry.action ? ['change', entry.action, entry.record_id, entry.record_hash] : []),
  ]);
  return createHash('sha256').update(prevHash).update('\n').update(content).digest('hex');
}
