import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SignedInUser } from '../../accounts/dashboard-sessions.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { type Clock, wholeMilliseconds } from '../../clock.js';
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
    const path = requestPath(request);
    if (!isAudited(path)) return;
    const key = request.apiKey;
    const user = request.dashboardUser;
    const userAgent = request.headers['user-agent'];
    audit.record({
      id: randomUUID(),
      request_id: String(request.id),
      occurred_at: new Date(clock.now().getTime() - Math.round(reply.elapsedTime)),
      // A dashboard request has no key: it is audited in its user's account chain.
      account_id: key?.accountId ?? user?.accountId ?? null,
      user_id: user?.userId ?? null,
      key_id: key?.keyId ?? null,
      key_prefix: key?.prefix ?? null,
      key_last4: key?.last4 ?? null,
      method: request.method,
      route:
        reply.statusCode === 404 && !request.routeOptions.url ? null : (request.routeOptions.url ?? null),
      path: path.slice(0, 2048),
      status: reply.statusCode,
      latency_ms: wholeMilliseconds(reply.elapsedTime),
      client_ip: request.ip ?? null,
      user_agent: typeof userAgent === 'string' ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null,
    });
  });
}
