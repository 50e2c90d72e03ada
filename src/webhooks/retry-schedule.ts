import { RETRY_DELAYS_MINUTES, RETRY_JITTER_FRACTION, RETRY_JITTER_MAX_MS } from './webhook-policy.js';

/** Attempts a delivery gets in all: the first one and one retry per scheduled delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MINUTES.length + 1;

/**
 * How long after the failed attempt number `failedAttempt` (1-based) the next one is due, or
 * `undefined` when that was the last one. The jitter only ever adds time, so a retry never comes
 * before its nominal delay; `random` returns a number in [0, 1) (tests pass their own).
 */
export function retryDelayMs(failedAttempt: number, random: () => number = Math.random): number | undefined {
  const minutes = RETRY_DELAYS_MINUTES[failedAttempt - 1];
  if (minutes === undefined) return undefined;
  const nominal = minutes * 60_000;
  const jitter = Math.floor(random() * Math.min(nominal * RETRY_JITTER_FRACTION, RETRY_JITTER_MAX_MS));
  return nominal + jitter;
}

/** The largest jitter a retry after `failedAttempt` may get (for documentation and tests). */
export function maxRetryJitterMs(failedAttempt: number): number {
  const minutes = RETRY_DELAYS_MINUTES[failedAttempt - 1] ?? 0;
  return Math.min(minutes * 60_000 * RETRY_JITTER_FRACTION, RETRY_JITTER_MAX_MS);
}
