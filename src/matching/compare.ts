import {
  type AnchorKeys,
  anchorKeys,
  MIN_ANCHOR_SIMILARITY,
  mergeAnchored,
  tokensAnchored,
} from './anchors.js';
import { explain, type NameScore, scoreNames } from './name-score.js';
import { prepareName } from './prepare.js';
import type { PreparedName } from './prepared.js';
import { tokenSimilarity } from './token-similarity.js';
import type { MatchExplanation, NameType, QueryType } from './types.js';

/** A prepared name with the anchor keys of its tokens, for comparisons outside an index. */
export interface KeyedName {
  name: PreparedName;
  keys: AnchorKeys[];
}

export function keyName(name: PreparedName): KeyedName {
  return { name, keys: name.tokens.map(anchorKeys) };
}

/**
 * Scores two prepared names directly, computing anchors from the tokens' keys. The index reaches the
 * same score for the same pair through its posting lists; the property tests hold it to that.
 */
export function scoreKeyedNames(q: KeyedName, c: KeyedName): NameScore {
  const n = q.name.tokens.length;
  const m = c.name.tokens.length;
  const qt = q.name.tokens;
  const ct = c.name.tokens;
  // An anchored pair's similarity (it decides the anchor too), -1 for the others.
  const anchoredSimilarity = new Float64Array(n * m).fill(-1);
  let anchored = false;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      if (!tokensAnchored(q.keys[i]!, c.keys[j]!)) continue;
      const similarity = tokenSimilarity(qt[i]!, ct[j]!, true);
      if (similarity < MIN_ANCHOR_SIMILARITY) continue;
      anchoredSimilarity[i * m + j] = similarity;
      anchored = true;
    }
  }
  if (!anchored) anchored = mergeAnchored(q.name, c.name);
  return scoreNames(q.name, c.name, {
    anchored,
    pairSimilarity: (i, j) => {
      const similarity = anchoredSimilarity[i * m + j]!;
      return similarity >= 0 ? similarity : tokenSimilarity(qt[i]!, ct[j]!, false);
    },
  });
}

export interface NameComparison {
  score: number;
  preparedA: string;
  preparedB: string;
  explanation: MatchExplanation;
}

/**
 * Compares two names as a screening would compare a query (`a`) with a listed name (`b`): both are
 * prepared as `type` (person or entity). The score is not symmetric in general, because tokens
 * missing from the listed name cost more than extra tokens in it.
 */
export function compareNames(
  a: string,
  b: string,
  type: QueryType,
  nameType: NameType = 'primary',
): NameComparison {
  const qa = keyName(prepareName(a, type));
  const qb = keyName(prepareName(b, type));
  const result = scoreKeyedNames(qa, qb);
  return {
    score: result.score,
    preparedA: qa.name.key,
    preparedB: qb.name.key,
    explanation: explain(qa.name, result, { full: b, type: nameType }),
  };
}
