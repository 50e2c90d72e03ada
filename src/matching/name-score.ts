import { type Alignment, alignTokens, type PairSimilarity } from './alignment.js';
import { ANCHOR_FREE_CAP } from './anchors.js';
import type { PreparedName, PreparedToken } from './prepared.js';
import { isHomophoneRich } from './script.js';
import { pairKind, tokenSimilarity } from './token-similarity.js';
import type { MatchExplanation, NameType, PenaltyExplanation, TokenPairExplanation } from './types.js';

/** Paired tokens in another order (`PUTIN VLADIMIR` / `VLADIMIR PUTIN`): same name, written differently. */
export const REORDER_FACTOR = 0.97;
/**
 * Two names whose numbers disagree (`ALPHA 1` / `ALPHA 2`, `FUND III` / `FUND IV`) are different
 * vessels, funds or companies more often than typos: never a strong match, but still above the
 * default threshold so that a wrongly typed number does not hide a listed party.
 */
export const NUMBER_CONFLICT_CAP = 0.75;
/** Only identical prepared forms score 1.0; anything else stays below. */
export const NON_EXACT_CAP = 0.99;
/**
 * A name whose text lost letters (replacement characters, from a list file read in the wrong
 * encoding) never makes a strong match on what is left of it: the lost letters may be the ones
 * that tell two names apart. Still reported, for an analyst to read the list's own record.
 */
export const DAMAGED_NAME_CAP = 0.6;
/**
 * Chinese characters and Japanese kana romanise to toneless syllables that thousands of different
 * characters share (何, 和, 贺 are all HE): a name matched through its romanisation against a name
 * written in another script agrees on sounds, not on the name, so it counts a little less.
 */
export const HOMOPHONE_FACTOR = 0.9;

function romanisedAcross(q: PreparedName, c: PreparedName): boolean {
  return q.script !== c.script && (isHomophoneRich(q.script) || isHomophoneRich(c.script));
}

/** What the scorer needs to know beyond the two names: pair similarities and the name-level anchor. */
export interface ScoringContext {
  pairSimilarity: PairSimilarity;
  /** Similarities of original-script words (same-script names); computed directly when absent. */
  originalSimilarity?: PairSimilarity;
  anchored: boolean;
  /**
   * Which query tokens of the transliterated form may take part in a merge with this name's
   * (`alignTokens`' `mergedWords` and `mergedPairs`); every one when absent. The index's marks
   * set both bits of a pair (i and i + 1), so `mergedPairs` also lets pair i + 1 be tested: a
   * superset, which only costs that test.
   */
  mergedWords?: number;
  mergedPairs?: number;
}

export interface NameScore {
  score: number;
  method: MatchExplanation['method'];
  alignment: Alignment | null;
  /** The token lists the alignment is over (transliterated or original-script). */
  queryTokens: readonly PreparedToken[];
  candidateTokens: readonly PreparedToken[];
  penalties: PenaltyExplanation[];
}

/** A number on either side without an equal number on the other (`ALPHA` / `ALPHA 2` too). */
function numbersConflict(q: PreparedName, c: PreparedName, alignment: Alignment): boolean {
  return (
    alignment.unmatchedQuery.some((i) => q.tokens[i]!.cls === 'number') ||
    alignment.unmatchedCandidate.some((j) => c.tokens[j]!.cls === 'number')
  );
}

const originalSimilarity =
  (q: readonly PreparedToken[], c: readonly PreparedToken[]): PairSimilarity =>
  (i, j) =>
    tokenSimilarity(q[i]!, c[j]!, true);

function hasNumber(name: PreparedName): boolean {
  return name.tokens.some((t) => t.cls === 'number');
}

function transliteratedAlignment(q: PreparedName, c: PreparedName, context: ScoringContext): Alignment {
  const similarity = withoutInitialPairs(q, c, context.pairSimilarity);
  return alignTokens(q.tokens, c.tokens, similarity, context.mergedWords, context.mergedPairs);
}

function bestAlignment(q: PreparedName, c: PreparedName, context: ScoringContext) {
  // Two names in the same non-Latin script are compared as written: transliteration can merge
  // distinct letters (Japanese 石 and 市 both become SHI).
  const sameScript = q.script === c.script && q.original.length > 0 && c.original.length > 0;
  if (sameScript) {
    // Numbers are compared on the transliterated tokens, which are aligned only when there are any.
    const numbersDiffer =
      (hasNumber(q) || hasNumber(c)) && numbersConflict(q, c, transliteratedAlignment(q, c, context));
    const similarity = context.originalSimilarity ?? originalSimilarity(q.original, c.original);
    const original = alignTokens(q.original, c.original, similarity);
    return {
      alignment: original,
      numbersDiffer,
      method: 'original_script' as const,
      qt: q.original,
      ct: c.original,
    };
  }
  const translit = transliteratedAlignment(q, c, context);
  return {
    alignment: translit,
    numbersDiffer: numbersConflict(q, c, translit),
    // Two Latin names are compared as they are spelt; only a name of another script was romanised.
    method: q.script === 'latin' && c.script === 'latin' ? ('fuzzy' as const) : ('transliterated' as const),
    qt: q.tokens,
    ct: c.tokens,
  };
}

/** Scores a prepared query against one prepared name: alignment, then penalties and caps. */
export function scoreNames(q: PreparedName, c: PreparedName, context: ScoringContext): NameScore {
  const scored = undamagedScore(q, c, context);
  if ((q.damaged || c.damaged) && scored.score > DAMAGED_NAME_CAP) {
    scored.score = DAMAGED_NAME_CAP;
    scored.penalties.push({
      reason: 'letters lost in the text (replacement characters)',
      cap: DAMAGED_NAME_CAP,
    });
  }
  return scored;
}

/**
 * In an organisation's name a single letter is a word of its own (`A A TRADING`), not the initial
 * of the query's word (`ACME TRADING`): companies are not named by initials the way people are.
 */
function withoutInitialPairs(q: PreparedName, c: PreparedName, sim: PairSimilarity): PairSimilarity {
  if (q.rules !== 'entity' || !(hasInitial(q) || hasInitial(c))) return sim;
  return (i, j) => ((q.tokens[i]!.cls === 'initial') !== (c.tokens[j]!.cls === 'initial') ? 0 : sim(i, j));
}

function hasInitial(name: PreparedName): boolean {
  return name.tokens.some((t) => t.cls === 'initial');
}

function undamagedScore(q: PreparedName, c: PreparedName, context: ScoringContext): NameScore {
  if (q.key === c.key && q.key !== '') {
    return {
      score: 1,
      method: 'exact',
      alignment: null,
      queryTokens: q.tokens,
      candidateTokens: c.tokens,
      penalties: [],
    };
  }
  const { alignment, numbersDiffer, method, qt, ct } = bestAlignment(q, c, context);
  const penalties: PenaltyExplanation[] = [];
  let score = alignment.score;
  if (alignment.reordered) {
    score *= REORDER_FACTOR;
    penalties.push({ reason: 'token order differs', factor: REORDER_FACTOR });
  }
  if (numbersDiffer) {
    if (score > NUMBER_CONFLICT_CAP) score = NUMBER_CONFLICT_CAP;
    penalties.push({ reason: 'numbers differ', cap: NUMBER_CONFLICT_CAP });
  }
  if (method !== 'original_script' && romanisedAcross(q, c)) {
    score *= HOMOPHONE_FACTOR;
    penalties.push({ reason: 'compared by romanised syllables across scripts', factor: HOMOPHONE_FACTOR });
  }
  if (!context.anchored) {
    if (score > ANCHOR_FREE_CAP) score = ANCHOR_FREE_CAP;
    penalties.push({ reason: 'no token nearly identical in both names', cap: ANCHOR_FREE_CAP });
  }
  if (score > NON_EXACT_CAP) score = NON_EXACT_CAP;
  return { score, method, alignment, queryTokens: qt, candidateTokens: ct, penalties };
}

function spanText(tokens: readonly PreparedToken[], start: number, length: number): string {
  return tokens
    .slice(start, start + length)
    .map((t) => t.text)
    .join(' ');
}

/** Turns a score into the JSON-serialisable explanation the API returns. */
export function explain(
  q: PreparedName,
  result: NameScore,
  name: { full: string; type: NameType },
): MatchExplanation {
  const { alignment, queryTokens: qt, candidateTokens: ct } = result;
  const pairs: TokenPairExplanation[] = (alignment?.pairs ?? []).map((p) => ({
    query: spanText(qt, p.query, p.queryLength),
    candidate: spanText(ct, p.candidate, p.candidateLength),
    score: round(p.similarity),
    how: p.queryLength === 2 || p.candidateLength === 2 ? 'merged' : pairKind(qt[p.query]!, ct[p.candidate]!),
  }));
  const exactPairs =
    result.method === 'exact'
      ? q.tokens.map((t) => ({ query: t.text, candidate: t.text, score: 1, how: 'identical' as const }))
      : [];
  return {
    matchedName: name.full,
    nameType: name.type,
    method: result.method,
    preparedQuery: qt.map((t) => t.text).join(' '),
    preparedName: ct.map((t) => t.text).join(' '),
    pairs: result.method === 'exact' ? exactPairs : pairs,
    unmatchedQuery: (alignment?.unmatchedQuery ?? []).map((i) => qt[i]!.text),
    unmatchedName: (alignment?.unmatchedCandidate ?? []).map((j) => ct[j]!.text),
    penalties: result.penalties,
    score: round(result.score),
  };
}

export function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
