/** Precision, recall and F1 of scored labelled pairs at a threshold, and the threshold that maximises F1. */

export interface ScoredPair {
  score: number;
  isMatch: boolean;
}

export interface Metrics {
  threshold: number;
  precision: number;
  recall: number;
  f1: number;
  count: number;
}

export function metricsAt(pairs: readonly ScoredPair[], threshold: number): Metrics {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of pairs) {
    const predicted = p.score >= threshold;
    if (predicted && p.isMatch) tp++;
    else if (predicted) fp++;
    else if (p.isMatch) fn++;
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { threshold, precision, recall, f1, count: pairs.length };
}

/** Scans thresholds 0.00..1.00 in steps of 0.01; ties go to the lowest threshold (the recall side). */
export function bestThreshold(pairs: readonly ScoredPair[]): Metrics {
  let best = metricsAt(pairs, 0);
  for (let k = 1; k <= 100; k++) {
    const m = metricsAt(pairs, k / 100);
    if (m.f1 > best.f1 + 1e-12) best = m;
  }
  return best;
}
