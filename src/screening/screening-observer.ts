import { ServiceError } from '../errors.js';
import type { FailedSource } from '../sources/source-failure.js';

/**
 * How a screening ended: answered from the sources (`live`) or the result cache (`cached`),
 * refused (quota, validation, plan: a ServiceError the caller gets) or `failed` (no source could
 * answer, or an unexpected error).
 */
export type ScreeningOutcome = 'live' | 'cached' | 'refused' | 'failed';

/** What the screening path reports as it goes, for the service's metrics; called synchronously. */
export interface ScreeningObserver {
  screened(outcome: ScreeningOutcome): void;
  cacheLookup(hit: boolean): void;
  /** Each asked source's answer time, and the sources that gave no answer. */
  sourcesAnswered(durationsMs: Readonly<Record<string, number>>, failed: readonly FailedSource[]): void;
}

/** The outcome of a screening that threw. */
export function outcomeOfError(error: unknown): ScreeningOutcome {
  return error instanceof ServiceError && error.code !== 'internal' ? 'refused' : 'failed';
}
