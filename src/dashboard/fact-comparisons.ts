import type { Flag } from '../sources/flag.js';

/** How a fact the request gave came out against a flag's record (a match explanation's `secondary`). */
export interface FactComparison {
  field: string;
  /**
   * `near`: close to what the record states, as two records of one birth may differ (neither
   * confirms nor contradicts); `unknown`: the record states nothing to compare it with, or nothing
   * comparable.
   */
  outcome: 'matches' | 'contradicts' | 'near' | 'unknown';
  /** The outcome in words, for a page. */
  words: string;
  /** What it did to the match score, as the API says it (`x0.7`, `+0.05`, `set to 1.0`, `none`). */
  effect: string;
  recordSays: string;
}

const FACT_NAMES: Record<string, string> = {
  date_of_birth: 'Birth date',
  countries: 'Countries',
  identifiers: 'Identifiers',
};

const OUTCOMES: Record<string, FactComparison['outcome']> = {
  match: 'matches',
  mismatch: 'contradicts',
  near: 'near',
  unknown: 'unknown',
};

const WORDS: Record<FactComparison['outcome'], string> = {
  matches: 'matches the record',
  contradicts: 'contradicts the record',
  near: 'is near the record (neither confirms nor contradicts)',
  unknown: 'cannot tell',
};

/** Every fact of the request as compared with the flag's record, in the explanation's order. */
export function factComparisons(flag: Pick<Flag, 'details'>): FactComparison[] {
  const explanation = flag.details.match_explanation as { secondary?: unknown } | undefined;
  const outcomes = Array.isArray(explanation?.secondary) ? explanation.secondary : [];
  return outcomes.flatMap(
    (o: { field?: unknown; outcome?: unknown; effect?: unknown; compared_with?: unknown }) => {
      const outcome = OUTCOMES[String(o.outcome)];
      if (outcome === undefined) return [];
      return [
        {
          field: FACT_NAMES[String(o.field)] ?? String(o.field),
          outcome,
          words: WORDS[outcome],
          effect: typeof o.effect === 'string' ? o.effect : '',
          recordSays: Array.isArray(o.compared_with) ? o.compared_with.join('; ') : '',
        },
      ];
    },
  );
}
