import type { Db } from './database.js';
import type { AuditLogRow } from './schema.js';

/**
 * Who makes a change and through which request: the fields of the request's own audit row that a
 * change's row repeats (the request's row, written after the response, adds status and latency).
 * An operator's request (the admin token) has neither key nor user; background work (a monitoring
 * run, the first-start bootstrap) names itself in `request_id` and `path`.
 */
export type ChangeActor = Pick<
  AuditLogRow,
  | 'request_id'
  | 'key_id'
  | 'key_prefix'
  | 'key_last4'
  | 'method'
  | 'route'
  | 'path'
  | 'client_ip'
  | 'user_agent'
> & { user_id: string | null };

/** The actor of a change made by the service itself, at `what` (`bootstrap`): no request, no key, no user. */
export function serviceActor(what: string): ChangeActor {
  return {
    request_id: what,
    key_id: null,
    key_prefix: null,
    key_last4: null,
    method: 'SERVICE',
    route: null,
    path: what,
    client_ip: null,
    user_agent: null,
    user_id: null,
  };
}

/** A change's actor with the account whose audit chain the change goes to. */
export type AuditActor = ChangeActor & { account_id: string };

/** The changes of `accounts/` that are chained in the audit log (the rest are the screening's). */
export type AccountChangeAction =
  | 'account.created'
  | 'account.changed'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'user.created'
  | 'user.deleted';

/**
 * Chains `action` on the account's rows `ids` in the caller's transaction (`recordChanges` of
 * src/audit/audited-change.ts, passed in by runtime.ts: `accounts/` cannot import `audit/`).
 */
export type ChangeRecorder = (
  trx: Db,
  actor: AuditActor,
  at: Date,
  action: AccountChangeAction,
  ids: readonly string[],
) => Promise<void>;
