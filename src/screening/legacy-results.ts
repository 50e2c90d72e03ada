import { registeredList } from '../sources/lists/list-registry.js';
import type { FailedSource } from '../sources/source-failure.js';
import type { SourceFailure } from './fan-out.js';
import { identifyFlags } from './flag-identity.js';
import type { StoredResult } from './screening-result.js';

/** A stored result as it was written before `sources_failed` and `complete`. */
type EarlierResult = Omit<StoredResult, 'sources_failed' | 'complete'>;

/**
 * A result stored before answers recorded their request, with `request: null`: what it was asked
 * besides its entity (the birth date, countries and identifiers, the query as given) was not
 * recorded, and a request rebuilt without them would read as one that gave none.
 */
export function withRequestUnrecorded(result: StoredResult): StoredResult {
  return result.request === undefined ? { ...result, request: null } : result;
}

/**
 * A result stored before answers carried `sources_failed` and `complete`, given them from the
 * row's own `source_errors`, so that every answer has the same fields. Such an error records no
 * reason: a timeout is known (`timed_out`), anything else is reported as `error`. Official lists
 * are known by their registry entry (providers never are one).
 */
export function withFailuresOfStoredErrors(
  result: StoredResult | EarlierResult,
  sourceErrors: readonly Partial<SourceFailure>[],
): StoredResult {
  if ('complete' in result && 'sources_failed' in result) return result;
  const failed: FailedSource[] = sourceErrors.map((e) => ({
    source: String(e.source),
    reason: e.reason ?? (e.timed_out ? 'timeout' : 'error'),
  }));
  const { timestamp, duration_ms, ...before } = result;
  return {
    ...before,
    sources_failed: failed,
    complete: !failed.some((f) => registeredList(f.source)?.kind === 'direct_feed'),
    timestamp,
    duration_ms,
  };
}

/** A result stored before answers named their stale lists: it named none. */
export function withStaleSources(result: StoredResult): StoredResult {
  return 'sources_stale' in result
    ? result
    : { ...(result as Omit<StoredResult, 'sources_stale'>), sources_stale: [] };
}

/**
 * A result stored before flags had ids, given them as a live screening would have (they depend on
 * the flag alone), so that every answer's flags have the same fields. Decisions are not taken on
 * such a screening: it records no subject.
 */
export function withFlagIds(result: StoredResult): StoredResult {
  if (result.flags.every((flag) => typeof flag.id === 'string')) return result;
  return { ...result, flags: identifyFlags(result.flags) };
}
