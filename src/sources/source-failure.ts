/**
 * Why a selected source gave no answer, as a screening reports it: it ran out of time, it could
 * not be asked at all (a list not loaded, a provider whose circuit is open), or it failed.
 */
export type SourceFailureReason = 'timeout' | 'unavailable' | 'error';

/** One entry of a screening's `sources_failed`. */
export interface FailedSource {
  source: string;
  reason: SourceFailureReason;
}
