import { createHash } from 'node:crypto';
import type { StaleSource } from '../sources/stale-source.js';
import type { ResolvedScreening } from './screening-request.js';

/**
 * The shape of a cached result. A new one (a field added to every answer) starts a new set of keys,
 * so that a result cached before it is never answered without the new fields.
 */
const RESULT_SHAPE = 'request+sources_stale';

/**
 * The result cache key: account, normalised entity, the request as screened (the query as given,
 * type, the facts given about the party, effective options: the answer reports it, so a cached
 * answer is only ever one of the very same request) and the data version of every source involved,
 * so a list update is never hidden by a cached answer, nor a list's staleness (`stale`); and the
 * reference and the subject's standing decisions, so a decision taken or withdrawn is never hidden
 * either (a new set of decisions is a new key).
 */
export function screeningCacheKey(
  accountId: string,
  screening: Pick<ResolvedScreening, 'entity' | 'request' | 'reference'>,
  versions: Record<string, string>,
  stale: readonly StaleSource[],
  decisionIds: readonly string[],
): string {
  const material = JSON.stringify([
    RESULT_SHAPE,
    accountId,
    screening.reference ?? null,
    [...decisionIds].sort(),
    screening.entity,
    screening.request,
    Object.entries(versions).sort(([a], [b]) => a.localeCompare(b)),
    // A cached answer says how stale its lists were: it is not reused once that changed.
    stale.map((s) => [s.source, s.list_age_days]),
  ]);
  return `screening:${createHash('sha256').update(material).digest('hex')}`;
}
