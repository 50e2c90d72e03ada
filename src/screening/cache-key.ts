import { createHash } from 'node:crypto';
import type { ResolvedScreening } from './screening-request.js';

/**
 * The shape of a cached result. A new one (a field added to every answer) starts a new set of keys,
 * so that a result cached before it is never answered without the new fields.
 */
const RESULT_SHAPE = 'sources_stale';

/**
 * The result cache key: account, normalised entity, type, the facts given about the party,
 * effective options and the data version of every source involved, so a list update is never
 * hidden by a cached answer; and the reference and the subject's standing decisions, so a decision
 * taken or withdrawn is never hidden either (a new set of decisions is a new key).
 */
export function screeningCacheKey(
  accountId: string,
  screening: Pick<
    ResolvedScreening,
    'entity' | 'type' | 'facts' | 'identifiersOnly' | 'options' | 'reference'
  >,
  versions: Record<string, string>,
  decisionIds: readonly string[],
): string {
  const { entity, type, facts, identifiersOnly, options } = screening;
  const material = JSON.stringify([
    RESULT_SHAPE,
    accountId,
    screening.reference ?? null,
    [...decisionIds].sort(),
    entity,
    type,
    identifiersOnly,
    facts.dateOfBirth ?? null,
    facts.countries ? [...facts.countries].sort() : null,
    facts.identifiers?.map((id) => [id.type, id.value, id.country ?? null]) ?? null,
    options.threshold,
    [...options.sources].sort(),
    options.include_adverse_media,
    Object.entries(versions).sort(([a], [b]) => a.localeCompare(b)),
  ]);
  return `screening:${createHash('sha256').update(material).digest('hex')}`;
}
