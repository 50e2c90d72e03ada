import type { EntityMatch, MatchExplanation } from '../matching/index.js';
import type { Flag } from './flag.js';
import type { ListEntity } from './list-entity.js';

/** The explanation as the API writes it (snake case, like every other field of the response). */
export function explanationForApi(explanation: MatchExplanation): Record<string, unknown> {
  return {
    matched_name: explanation.matchedName,
    name_type: explanation.nameType,
    method: explanation.method,
    prepared_query: explanation.preparedQuery,
    prepared_name: explanation.preparedName,
    token_pairs: explanation.pairs,
    unmatched_query_tokens: explanation.unmatchedQuery,
    unmatched_name_tokens: explanation.unmatchedName,
    penalties: explanation.penalties,
    score: explanation.score,
  };
}

/** What a flag mapper may need to know about the instance besides the entity and the match. */
export interface FlagContext {
  /** Ids of the lists enabled on this instance. */
  enabledLists: readonly string[];
}

/** Turns a list entry that matched into a flag; each list registry entry names its own (see lists/list-registry.ts). */
export type ListFlagMapper = (entity: ListEntity, match: EntityMatch, context: FlagContext) => Flag;

/**
 * A sanctions flag from one list entry: the entry in the common entity model, which name matched
 * and why, and the list's own record (`source_record`) for whoever needs every detail.
 */
export function listFlag(entity: ListEntity, match: EntityMatch): Flag {
  return {
    type: 'sanctions',
    source: entity.source,
    list: entity.list,
    match_score: match.score,
    details: entityDetails(entity, match),
  };
}

/** The details every list flag carries, whatever its type. */
export function entityDetails(entity: ListEntity, match: EntityMatch): Record<string, unknown> {
  const [primary, ...others] = entity.names;
  return {
    source_id: entity.source_id,
    kind: entity.kind,
    // A record of another kind than the query's type, reported for its strong name (its score lowered).
    kind_mismatch: match.kindMismatch === true,
    name: primary?.full ?? match.matchedName.full,
    aliases: others.map((n) => ({ name: n.full, type: n.type, ...(n.script ? { script: n.script } : {}) })),
    programs: entity.programs,
    birth_dates: entity.birth_dates,
    places_of_birth: entity.places_of_birth ?? [],
    nationalities: entity.nationalities ?? [],
    countries: entity.countries,
    identifiers: entity.identifiers,
    addresses: entity.addresses,
    remarks: entity.remarks ?? null,
    listed_on: entity.listed_on ?? null,
    url: entity.url ?? null,
    matched_name: match.matchedName.full,
    matched_name_type: match.matchedName.type,
    match_explanation: explanationForApi(match.explanation),
    source_record: entity.raw,
  };
}
