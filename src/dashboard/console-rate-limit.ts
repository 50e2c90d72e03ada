import type { FastifyReply } from 'fastify';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../accounts/plans.js';
import type { AppContext } from '../http/context.js';
import { RATE_LIMIT_WINDOW_SECONDS } from '../store/rate-limiter.js';

/**
 * A session is no way around the API's rate limit: the dashboard's forms that screen or import are
 * held to it per user. Null when the request may go on; else the message for the form, with
 * `Retry-After` set on the reply (the caller answers 429).
 */
export async function consoleRateLimit(
  ctx: Pick<AppContext, 'rateLimiter'>,
  userId: string,
  reply: FastifyReply,
  what: 'names screened' | 'requests sent',
): Promise<string | null> {
  const decision = await ctx.rateLimiter.consume(`user:${userId}`, DEFAULT_RATE_LIMIT_PER_MINUTE);
  if (decision.allowed) return null;
  reply.header('Retry-After', String(decision.resetSeconds));
  const [count, noun] = what === 'names screened' ? ['screened', 'names'] : ['sent', 'requests'];
  return `You ${count} more than ${DEFAULT_RATE_LIMIT_PER_MINUTE} ${noun} in ${RATE_LIMIT_WINDOW_SECONDS} seconds; try again in ${decision.resetSeconds} s.`;
}
