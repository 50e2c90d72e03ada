import type { QueuedFlag } from '../screening/decisions/review-queue.js';
import type { AppliedDecision } from '../screening/screening-result.js';
import { factComparisons } from './fact-comparisons.js';

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

export function decisionName(value: string): string {
  return DECISION_NAMES[value] ?? value;
}

export function decisionView(decision: AppliedDecision, later: boolean): DecisionView {
  return { label: decisionName(decision.value), note: decision.note, decidedAt: decision.decided_at, later };
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
    // The facts the record agrees or disagrees with; those it says nothing about are left out.
    comparisons: factComparisons(flag).filter((c) => c.outcome !== 'unknown'),
    previousDecision: details.previous_decision !== undefined,
  };
}
