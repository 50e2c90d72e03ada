import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedKey, KeyAuthenticator } from '../../accounts/key-authenticator.js';
import type { LastUsedRecorder } from '../../accounts/last-used.js';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../../accounts/plans.js';
import type { RequestRateLimiter } from '../../store/rate-limiter.js';
import { RATE_LIMIT_WINDOW_SECONDS } from '../../store/rate-limiter.js';
import { sendProblem } from './problem-responses.js';

export type RouteAuth = 'key' | 'admin' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /** The key that authenticated the request; also set when it was refused as revoked or suspended. */
    apiKey: AuthenticatedKey | undefined;
  }
}

/** Places where clients wrongly put keys; seeing one there earns a hint in the 401. */
const KEY_QUERY_PARAMETERS = ['api_key', 'key', 'access_token', 'token'];

export interface AuthenticationDeps {
  keys: KeyAuthenticator;
  lastUsed: LastUsedRecorder;
  rateLimiter: RequestRateLimiter;
  adminToken: string;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

function keyOutsideHeader(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  const inQuery = KEY_QUERY_PARAMETERS.some((name) => query?.[name] !== undefined);
  return inQuery || request.headers.cookie !== undefined;
}

function sameSecret(presented: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison time does not reveal the token's length.
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

async function authenticateKey(deps: AuthenticationDeps, request: FastifyRequest, reply: FastifyReply) {
  const token = bearerToken(request);
  if (token === undefined) {
    const detail = keyOutsideHeader(request)
      ? 'API keys are accepted only in the Authorization header (Authorization: Bearer cs_live_...), never in the query string or a cookie.'
      : 'Send your API key in the Authorization header: Authorization: Bearer cs_live_...';
    return sendProblem(request, reply, 'unauthenticated', detail);
  }
  const result = await deps.keys.authenticate(token);
  if (result.outcome === 'malformed' || result.outcome === 'unknown') {
    return sendProblem(request, reply, 'unauthenticated', 'The API key is not valid.');
  }
  request.apiKey = result.key;
  if (result.outcome === 'revoked')
    return sendProblem(request, reply, 'key-revoked', 'This API key was revoked.');
  if (result.outcome === 'suspended') {
    return sendProblem(request, reply, 'account-suspended', 'The account of this API key is suspended.');
  }
  deps.lastUsed.touch(result.key.keyId, result.key.lastUsedAt);
  const limit = result.key.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const decision = await deps.rateLimiter.consume(result.key.keyId, limit);
  reply.header('RateLimit-Policy', `"default";q=${limit};w=${RATE_LIMIT_WINDOW_SECONDS}`);
  reply.header('RateLimit', `"default";r=${decision.remaining};t=${decision.resetSeconds}`);
  if (!decision.allowed) {
    reply.header('Retry-After', String(decision.resetSeconds));
    return sendProblem(
      request,
      reply,
      'rate-limited',
      `This key made more than ${limit} requests in ${RATE_LIMIT_WINDOW_SECONDS} s; retry in ${decision.resetSeconds} s.`,
    );
  }
}

/**
 * Runs before the body is read, so that the order of checks is authentication, then rate limit,
 * then parsing and validation. Routes choose `config.auth`: `key` (the default for /v1), `admin`
 * or `none`.
 */
export function registerAuthentication(app: FastifyInstance, deps: AuthenticationDeps): void {
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request, reply) => {
    // Unknown paths under /v1 still need a key: callers learn nothing about routes without one, and
    // their 404s are audited under their account.
    const auth = request.routeOptions.config.auth ?? (request.url.startsWith('/v1/') ? 'key' : 'none');
    // Answers to credentialed requests are the caller's own (a new key, a webhook secret, screened
    // names): no browser or proxy may keep a copy, refusals included.
    if (auth !== 'none') reply.header('Cache-Control', 'no-store');
    if (auth === 'key') return authenticateKey(deps, request, reply);
    if (auth === 'admin') {
      const token = bearerToken(request);
      if (token === undefined || !sameSecret(token, deps.adminToken)) {
        return sendProblem(
          request,
          reply,
          'admin-unauthenticated',
          'The operator token is missing or wrong.',
        );
      }
    }
  });
}
