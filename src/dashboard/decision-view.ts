import type { QueuedFlag } from '../screening/decisions/review-queue.js';
import type { AppliedDecision, ScreenedFlag } from '../screening/screening-result.js';

const DECISION_NAMES: Record<string, string> = {
  false_positive: 'False positive',
  true_match: 'True match',
};

/** A decision as the dashboard shows it beside its flag. */
export interface DecisionView {
  label: string;
  note: string;
  decidedAt: string;
  /** Whether it was taken after this screening (a standing decision on the same record). */
  later: boolean;
}

/** What a record says of a fact the request gave, as compared (a match or a contradiction). */
export interface FactComparison {
  field: string;
  outcome: string;
  recordSays: string;
}

const FACT_NAMES: Record<string, string> = {
  date_of_birth: 'Birth date',
  countries: 'Countries',
  identifiers: 'Identifiers',
};

export function decisionName(value: string): string {
  return DECISION_NAMES[value] ?? value;
}

export function decisionView(decision: AppliedDecision, later: boolean): DecisionView {
  return { label: decisionName(decision.value), note: decision.note, decidedAt: decision.decided_at, later };
}

/**
 * The facts of the request the record agrees or disagrees with (the match explanation's
 * `secondary` outcomes); facts the record says nothing about are left out.
 */
export function factComparisons(flag: ScreenedFlag): FactComparison[] {
  const explanation = flag.details.match_explanation as { secondary?: unknown } | undefined;
  const outcomes = Array.isArray(explanation?.secondary) ? explanation.secondary : [];
  return outcomes.flatMap((o: { field?: unknown; outcome?: unknown; compared_with?: unknown }) =>
    o.outcome === 'match' || o.outcome === 'mismatch'
      ? [
          {
            field: FACT_NAMES[String(o.field)] ?? String(o.field),
            outcome: o.outcome === 'match' ? 'matches' : 'contradicts',
            recordSays: Array.isArray(o.compared_with) ? o.compared_with.join('; ') : '',
          },
        ]
      : [],
  );
}

/** One row of the review queue. */
export function queuedFlagView(queued: QueuedFlag) {
  const { flag } = queued;
  const details = flag.details;
  return {
    screeningId: queued.screeningId,
    flagId: flag.id,
    entity: queued.entity,
    reference: queued.reference,
    riskLevel: queued.riskLevel,
    screenedAt: queued.screenedAt,
    listedName: String(details.name ?? details.title ?? details.matched_name ?? ''),
    source: flag.source,
    list: flag.list,
    score: flag.match_score.toFixed(2),
    comparisons: factComparisons(flag),
    previousDecision: details.previous_decision !== undefined,
  };
}
