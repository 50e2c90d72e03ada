import type { EntityKind, NameRules, NameType } from './types.js';

/**
 * Weak aliases (OFAC's "weak a.k.a.", short or generic names) identify a party poorly: a fuzzy match
 * on one is scaled down so it ranks below the same match on a strong name. An exact match on a weak
 * alias still scores 1.0, as the contract for identical prepared names requires.
 */
export const WEAK_ALIAS_FACTOR = 0.8;

export function nameTypeAdjusted(score: number, type: NameType): number {
  return type === 'weak_aka' && score < 1 ? score * WEAK_ALIAS_FACTOR : score;
}

/** How a listed name is prepared: people get person rules (reordering, titles), all others entity rules. */
export function preparationFor(kind: EntityKind): NameRules {
  return kind === 'person' ? 'person' : 'entity';
}
