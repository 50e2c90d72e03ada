import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '../../audit/audit-chain.js';
import type { AuditActor } from '../../audit/audited-change.js';

type AuditedMonitor = { id: string; accountId: string; keyId: string | null };
type MonitorWork = 'first-screening' | 'alerts';

/**
 * Who does work for a monitor in the background (its first screening, its alerts): the request
 * `POST /v1/monitors/{id}/<what>` as it would have been made, in the monitor's account, under the
 * key that made the monitor (none for one made in the dashboard).
 */
export function monitorActor(monitor: AuditedMonitor, what: MonitorWork, requestId: string): AuditActor {
  return {
    account_id: monitor.accountId,
    request_id: requestId,
    key_id: monitor.keyId,
    key_prefix: null,
    key_last4: null,
    method: 'POST',
    route: `/v1/monitors/:id/${what}`,
    path: `/v1/monitors/${monitor.id}/${what}`,
    client_ip: null,
    user_agent: null,
    user_id: null,
  };
}

/** The audit row of such work, as that request would have left it. */
export function monitorAuditRow(
  monitor: AuditedMonitor,
  what: MonitorWork,
  work: { requestId: string; at: Date; status: number; latencyMs: number },
): AuditEntry {
  return {
    ...monitorActor(monitor, what, work.requestId),
    id: randomUUID(),
    occurred_at: work.at,
    status: work.status,
    latency_ms: work.latencyMs,
  };
}

/**
 * Who deletes the hidden monitors of an import given up while staged (abandoned-imports.ts): the
 * request `POST /v1/monitors/imports/{id}/abandon` as it would have been made, in the import's
 * account, under the key that made it.
 */
export function abandonedImportActor(staged: {
  id: string;
  accountId: string;
  keyId: string | null;
}): AuditActor {
  return {
    account_id: staged.accountId,
    request_id: `${staged.id}:abandon`,
    key_id: staged.keyId,
    key_prefix: null,
    key_last4: null,
    method: 'POST',
    route: '/v1/monitors/imports/:id/abandon',
    path: `/v1/monitors/imports/${staged.id}/abandon`,
    client_ip: null,
    user_agent: null,
    user_id: null,
  };
}
