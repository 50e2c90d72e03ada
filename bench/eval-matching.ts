import { compareNames } from '../src/matching/index.js';
import {
  matchingDataDir,
  readCrossScriptPairs,
  readDevPairs,
  readOfacToolScores,
} from './matching/dev-pairs.js';
import { bestThreshold, type Metrics, metricsAt, type ScoredPair } from './matching/metrics.js';

/**
 * Evaluation of the matching engine on the labelled files of `MATCHING_DATA_DIR` (run with
 * `npm run eval:matching`). Prints the figures kept in docs/matching.md.
 */

const MATCHING_DATA_DIR = matchingDataDir('eval:matching');

const DEFAULT_THRESHOLD = 0.5;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const row = (label: string, m: Metrics) =>
  `| ${label} | ${m.count} | ${m.threshold.toFixed(2)} | ${pct(m.precision)} | ${pct(m.recall)} | ${m.f1.toFixed(3)} |`;

function evaluateDevPairs(): void {
  const scored = readDevPairs(MATCHING_DATA_DIR).map((p) => ({
    ...p,
    score: compareNames(p.name1, p.name2, p.schema === 'Person' ? 'person' : 'entity').score,
  }));
  const groups = new Map<string, (ScoredPair & { caseGroup: string })[]>([['all', scored]]);
  for (const p of scored) groups.set(p.caseGroup, [...(groups.get(p.caseGroup) ?? []), p]);
  const overallBest = bestThreshold(scored);
  console.log('## name_pairs_dev.csv\n');
  console.log('| group | pairs | threshold | precision | recall | F1 |\n|---|---|---|---|---|---|');
  for (const [group, pairs] of groups) {
    console.log(row(`${group} @ default`, metricsAt(pairs, DEFAULT_THRESHOLD)));
    console.log(row(`${group} @ overall best`, metricsAt(pairs, overallBest.threshold)));
  }
  console.log(row('all @ its best', overallBest));
}

function evaluateCrossScript(): void {
  const pairs = readCrossScriptPairs(MATCHING_DATA_DIR);
  console.log('\n## watchman_cross_script_pairs.csv\n');
  let reached = 0;
  for (const p of pairs) {
    const score = compareNames(p.query, p.expected, 'person').score;
    if (score >= p.minScore) reached++;
    console.log(
      `- ${score >= p.minScore ? 'ok  ' : 'MISS'} ${p.query} / ${p.expected}: ${score.toFixed(3)} (min ${p.minScore})`,
    );
  }
  console.log(`\n${reached} of ${pairs.length} pairs reach their minimum score.`);
}

function evaluateOfacParity(): void {
  const rows = readOfacToolScores(MATCHING_DATA_DIR).filter((r) => r.ofacScore >= 0);
  const diffs = rows.map((r) =>
    Math.abs(100 * compareNames(r.query, r.result, 'person').score - r.ofacScore),
  );
  const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
  const within5 = diffs.filter((d) => d <= 5).length / diffs.length;
  console.log('\n## ofac_tool_scores_dev.csv\n');
  console.log(
    `${rows.length} scored rows: mean |100*score - ofac_score| = ${mean.toFixed(1)}, within 5 points: ${pct(within5)}`,
  );
}

evaluateDevPairs();
evaluateCrossScript();
evaluateOfacParity();
