import type { ScreenedFlag } from '../screening-result.js';
import type { StoredDecision } from './decision-store.js';

/**
 * The flags with the subject's standing decisions applied (`standing` newest first). A decision
 * applies to the record in the state it was taken on: a flag whose record the list has changed
 * since (another `record_hash`) comes back undecided, with the decision as
 * `details.previous_decision`, for the analyst to look at again.
 */
export function applyDecisions(
  flags: readonly ScreenedFlag[],
  standing: readonly StoredDecision[],
): ScreenedFlag[] {
  if (standing.length === 0) return [...flags];
  const byFlag = new Map<string, StoredDecision>();
  for (const decision of standing) if (!byFlag.has(decision.flag_id)) byFlag.set(decision.flag_id, decision);
  return flags.map((flag) => {
    const decision = byFlag.get(flag.id);
    if (!decision) return flag;
    const applied = {
      id: decision.id,
      value: decision.decision,
      note: decision.note,
      decided_by: decision.decided_by,
      decided_at: decision.decided_at,
    };
    if (decision.record_hash === flag.details.record_hash) return { ...flag, decision: applied };
    return {
      ...flag,
      details: { ...flag.details, previous_decision: { ...applied, record_hash: decision.record_hash } },
    };
  });
}

/** The flags that count toward the risk: all but those an analyst cleared as false positives. */
export function riskBearing(flags: readonly ScreenedFlag[]): ScreenedFlag[] {
  return flags.filter((flag) => flag.decision?.value !== 'false_positive');
}
