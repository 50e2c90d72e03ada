import type { EntityKind, EntityMatch, QueryType } from './types.js';

/**
 * A typed query (`organization`) keeps listed records of other kinds (a person) away, unless the
 * name matches one at least this well: customers' data is often mislabelled, and "Saddam Hussein"
 * screened as an organisation must not come back clean. Measured with `npm run eval:alerts` on the
 * parties of no list screened with a wrong type (docs/matching.md, "Kinds").
 */
export const KIND_MISMATCH_BAR = 0.85;

/**
 * The match of a record of another kind is scaled by this: a sanctions flag then lands in the
 * `medium` band (0.85 -> 0.64, 1.0 -> 0.75: 30 to 44 points), for review, not `high`; the risk
 * rule keeps any such flag at `medium` at least (src/screening/risk.ts).
 */
export const KIND_MISMATCH_FACTOR = 0.75;

const KINDS_BY_READING = [
  { readAs: 'person', kinds: ['person'] },
  { readAs: 'entity', kinds: ['organization', 'vessel', 'aircraft'] },
] as const satisfies readonly { readAs: QueryType; kinds: readonly EntityKind[] }[];

/**
 * The kinds a query of `type` reaches only by a strong match, grouped by the rules their names are
 * prepared by, with the type to read the query as for them: a person's name is read by person rules
 * however it was labelled. Empty for `entity`, which matches every kind.
 */
export function mismatchedKinds(type: QueryType): { readAs: QueryType; kinds: EntityKind[] }[] {
  if (type === 'entity') return [];
  return KINDS_BY_READING.map(({ readAs, kinds }) => ({
    readAs,
    kinds: kinds.filter((kind) => kind !== type),
  })).filter((group) => group.kinds.length > 0);
}

/** The least name score a record of another kind must reach, to be reported at `threshold`. */
export function kindMismatchThreshold(threshold: number): number {
  return Math.max(KIND_MISMATCH_BAR, threshold / KIND_MISMATCH_FACTOR);
}

/** `match` of a record of another kind than the query's `type`: scaled, marked, the penalty explained. */
export function kindMismatched(match: EntityMatch, type: QueryType): EntityMatch {
  const score = match.score * KIND_MISMATCH_FACTOR;
  return {
    ...match,
    score,
    kindMismatch: true,
    explanation: {
      ...match.explanation,
      score,
      penalties: [
        ...match.explanation.penalties,
        {
          reason: `the record is of another kind than the query's type (${type})`,
          factor: KIND_MISMATCH_FACTOR,
        },
      ],
    },
  };
}
