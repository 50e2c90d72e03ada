import { ListUnavailableError } from './lists/loaded-lists.js';
import { ProviderError } from './providers/provider-error.js';

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

/**
 * The reason for what a source threw. The details (addresses, status codes) stay in the stored
 * `source_errors` for the operator; the customer learns only which of the three it was.
 */
export function failureReason(error: unknown): SourceFailureReason {
  if (error instanceof ListUnavailableError) return 'unavailable';
  if (error instanceof ProviderError) {
    if (error.failure === 'timeout') return 'timeout';
    if (error.failure === 'circuit_open') return 'unavailable';
  }
  return 'error';
}
