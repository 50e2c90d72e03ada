import type { EntityKind, NameRules, QueryType } from './types.js';

/** The rules a query of `type` is prepared by: a person's name by person rules, every other by entity rules. */
export function rulesOf(type: QueryType): NameRules {
  return type === 'person' ? 'person' : 'entity';
}

/**
 * The kinds of listed record a query of `type` may match (undefined: every kind). A record whose
 * kind its list does not state (`unknown`) stays a candidate for every type: leaving it out could
 * miss a listed party.
 */
export function kindsMatchedBy(type: QueryType): EntityKind[] | undefined {
  return type === 'entity' ? undefined : [type, 'unknown'];
}
