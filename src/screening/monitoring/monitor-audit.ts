import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '../../audit/audit-chain.js';

/**
 * The audit row of work done for a monitor in the background (its first screening, an alert), as
 * the request `POST /v1/monitors/{id}/<what>` would have left it: in the monitor's account, under
 * the key that made it (none for one made in the dashboard).
 */
export function monitorAuditRow(
  monitor: { id: string; accountId: string; keyId: string | null },
  what: 'first-screening' | 'alerts',
  work: { requestId: string; at: Date; status: number; latencyMs: number },
): AuditEntry {
  return {
    id: randomUUID(),
    request_id: work.requestId,
    occurred_at: work.at,
    account_id: monitor.accountId,
    key_id: monitor.keyId,
    key_prefix: null,
    key_last4: null,
    method: 'POST',
    route: `/v1/monitors/:id/${what}`,
    path: `/v1/monitors/${monitor.id}/${what}`,
    status: work.status,
    latency_ms: work.latencyMs,
    client_ip: null,
    user_agent: null,
  };
}
