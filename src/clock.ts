/** The time source of every service, passed in so tests can move time (month boundaries, expiry). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Milliseconds rounded to the microsecond, as every duration the service reports is written. */
export function roundMilliseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Milliseconds since a `performance.now()` reading, rounded like every reported duration. */
export function millisecondsSince(started: number): number {
  return roundMilliseconds(performance.now() - started);
}
