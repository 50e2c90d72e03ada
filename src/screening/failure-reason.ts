import { ListUnavailableError } from '../sources/lists/loaded-lists.js';
import { ProviderError } from '../sources/providers/provider-error.js';
import type { SourceFailureReason } from '../sources/source-failure.js';

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
