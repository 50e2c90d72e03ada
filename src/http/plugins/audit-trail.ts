import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SignedInUser } from '../../accounts/dashboard-sessions.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { AuditActor } from '../../audit/audited-change.js';
import { type Clock, wholeMilliseconds } from '../../clock.js';
import type { ChangeActor } from '../../store/change-recorder.js';
import { requestPath } from '../request-path.js';
import { sendProblem } from './problem-responses.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in dashboard user (set by the dashboard's session hook), audited with the request. */
    dashboardUser: SignedInUser | undefined;
  }
}

/**
 * Paths whose requests are audited: the API, the operator API and the dashboard's pages and
 * actions. The health check (polled by load balancers) and the dashboard's static files (the same
 * public bytes for everyone) are not.
 */
export function isAudited(path: string): boolean {
  if (path === '/v1/health') return false;
  if (path === '/dashboard' || (path.startsWith('/dashboard/') && !path.startsWith('/dashboard/assets/')))
    return true;
  return path === '/v1' || path.startsWith('/v1/') || path.startsWith('/admin/v1/');
}

const MAX_USER_AGENT_LENGTH = 512;

/** One audit row per request, written after the response (batched by the AuditWriter). */
export function registerAuditTrail(app: FastifyInstance, audit: AuditWriter, clock: Clock): void {
  app.decorateRequest('dashboardUser', undefined);
  // A request that could not be audited is not served (its refusal is still recorded).
  app.addHook('onRequest', async (request, reply) => {
    const path = requestPath(request);
    if (audit.saturated && isAudited(path)) {
      return sendProblem(
        request,
        reply,
        'service-unavailable',
        'The audit log cannot be written at the moment.',
      );
    }
  });
  app.addHook('onResponse', async (request: FastifyRequest, reply) => {
    if (!isAudited(requestPath(request))) return;
    const { account_id, ...who } = requestAuditFields(request);
    audit.record({
      ...who,
      account_id,
      id: randomUUID(),
      occurred_at: new Date(clock.now().getTime() - Math.round(reply.elapsedTime)),
      route:
        reply.statusCode === 404 && !request.routeOptions.url ? null : (request.routeOptions.url ?? null),
      status: reply.statusCode,
      latency_ms: wholeMilliseconds(reply.elapsedTime),
    });
  });
}

/** What the audit row of a request says of it and of who made it, before its response. */
function requestAuditFields(
  request: FastifyRequest,
): Omit<AuditActor, 'account_id'> & { account_id: string | null } {
  const key = request.apiKey;
  const user = request.dashboardUser;
  const userAgent = request.headers['user-agent'];
  return {
    request_id: String(request.id),
    // A dashboard request has no key: it is audited in its user's account chain.
    account_id: key?.accountId ?? user?.accountId ?? null,
    user_id: user?.userId ?? null,
    key_id: key?.keyId ?? null,
    key_prefix: key?.prefix ?? null,
    key_last4: key?.last4 ?? null,
    method: request.method,
    route: request.routeOptions.url ?? null,
    path: requestPath(request).slice(0, 2048),
    client_ip: request.ip ?? null,
    user_agent: typeof userAgent === 'string' ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null,
  };
}

/**
 * Who makes the changes of a request to the account-wide records (keys, users, accounts): its API
 * key, its signed-in dashboard user, or the operator (neither); the service names the account.
 */
export function changeActor(request: FastifyRequest): ChangeActor {
  const { account_id: _, ...actor } = requestAuditFields(request);
  return actor;
}

/**
 * Who makes the changes of an authenticated request (its API key, or its signed-in dashboard
 * user): the audit rows of its changes are written with the changes, in their transaction.
 */
export function auditActor(request: FastifyRequest): AuditActor {
  const fields = requestAuditFields(request);
  if (fields.account_id === null) throw new Error('an audited change needs an authenticated request');
  return { ...fields, account_id: fields.account_id };
}
