import { randomUUID } from 'node:crypto';
import type { AccountChangeAction, AuditActor } from '../store/change-recorder.js';
import type { Db } from '../store/database.js';
import type { Actor } from '../store/schema.js';
import { appendAuditRows } from './audit-append.js';
import { type AuditedTable, recordHashes } from './audited-records.js';

export type { AuditActor } from '../store/change-recorder.js';

/** What a change does, by the table of the row it changes. */
const ACTIONS = {
  'decision.created': 'decisions',
  'decision.superseded': 'decisions',
  'decision.withdrawn': 'decisions',
  'alert.raised': 'alerts',
  'alert.closed': 'alerts',
  'monitor.created': 'monitors',
  'monitor.imported': 'monitors',
  'monitor.deleted': 'monitors',
  'account.created': 'accounts',
  'account.changed': 'accounts',
  'api_key.created': 'api_keys',
  'api_key.revoked': 'api_keys',
  'user.created': 'users',
  'user.deleted': 'users',
} as const satisfies Record<string, AuditedTable> & Record<AccountChangeAction, AuditedTable>;
export type AuditedAction = keyof typeof ACTIONS;

/** The API key behind a request, or else its dashboard user: `decided_by`, `closed_by`, `withdrawn_by`. */
export function actorOf(actor: AuditActor): Actor {
  return actor.key_id !== null
    ? { type: 'api_key', id: actor.key_id }
    : { type: 'dashboard_user', id: actor.user_id ?? '' };
}

/**
 * Chains `action` on the account's rows `ids` in the caller's transaction, after the change: one
 * audit row per row changed, with its hash as the change left it. The change and its audit rows
 * commit together or not at all, so a change answered is never missing from the log, and
 * `audit verify` compares each row with the hash of its latest change (audit-verify.ts).
 */
export async function recordChanges(
  trx: Db,
  actor: AuditActor,
  at: Date,
  action: AuditedAction,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  const hashes = await recordHashes(trx, ACTIONS[action], actor.account_id, ids);
  await appendAuditRows(
    trx,
    ids.map((id) => ({
      ...actor,
      id: randomUUID(),
      occurred_at: at,
      status: null,
      latency_ms: null,
      action,
      record_id: id,
      record_hash: hashes.get(id) ?? null,
    })),
  );
}
