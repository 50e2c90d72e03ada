/** The time source of every service, passed in so tests can move time (month boundaries, expiry). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Milliseconds rounded to the microsecond: the precise figure, for `Server-Timing` only. Durations
 * in answers and stored rows are whole milliseconds (`wholeMilliseconds`).
 */
export function roundMilliseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Whole milliseconds, as every `duration_ms` and `latency_ms` the service reports is documented. */
export function wholeMilliseconds(ms: number): number {
  return Math.round(ms);
}

/** Whole milliseconds since a `performance.now()` reading, as every reported duration is written. */
export function millisecondsSince(started: number): number {
  return wholeMilliseconds(performance.now() - started);
}

/** The UTC day of `date`, `YYYY-MM-DD`. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
