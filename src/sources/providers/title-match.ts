import {
  compareNames,
  jaroWinkler,
  type MatchExplanation,
  type PreparedToken,
  prepareName,
  type QueryType,
} from '../../matching/index.js';

/** How well a headline names the screened party: the best run of its words, scored by the matcher. */
export interface TitleMatch {
  score: number;
  /** The words of the title that matched, as written there. */
  matchedText: string;
  explanation: MatchExplanation;
}

/**
 * A title word can be part of a match only when its prepared form is the same as one of the name's
 * (legal forms included), shares an equivalence group with one (name variants, transliteration
 * families), or is at least this close to one (Jaro-Winkler). This is a cheap filter, not a score:
 * a matcher comparison is far dearer than this test, and comparing every run of every title of a
 * long answer would hold up the screening.
 */
export const TITLE_WORD_PREFILTER_SIMILARITY = 0.75;

/**
 * Finds a name in headlines. Runs of one word fewer to one word more than the name are compared
 * with it by the service's own matcher (`compareNames`), so that a headline scores as a listed
 * name would: "Alexander V. Zakharov arrested" matches "Alexander Zakharov", "Acme Trading Ltd
 * fined" matches "Acme Trading Ltd". Only runs that begin and end with a word like one of the
 * name's are compared: a run that adds an unlike word at either end only adds an unmatched token,
 * which can lower a score, never raise it.
 */
export class TitleMatcher {
  private readonly nameTokens: readonly PreparedToken[];
  private readonly nameWordCount: number;
  /** Whether a title word resembles the name, by word: headlines of one story repeat their words. */
  private readonly resemblance = new Map<string, boolean>();

  constructor(
    private readonly name: string,
    private readonly type: QueryType,
  ) {
    this.nameTokens = prepareName(name, type).tokens;
    this.nameWordCount = name.split(/\s+/).filter((w) => w.length > 0).length;
  }

  match(title: string): TitleMatch | undefined {
    const words = titleWords(title);
    const hits = words.map((word) => this.resembles(word));
    const shortest = Math.max(1, this.nameWordCount - 1);
    let best: TitleMatch | undefined;
    for (let start = 0; start < words.length; start++) {
      if (!hits[start]) continue;
      for (
        let length = shortest;
        length <= this.nameWordCount + 1 && start + length <= words.length;
        length++
      ) {
        if (!hits[start + length - 1]) continue;
        const run = words.slice(start, start + length).join(' ');
        const compared = compareNames(this.name, run, this.type);
        if (!best || compared.score > best.score) {
          best = { score: compared.score, matchedText: run, explanation: compared.explanation };
        }
      }
    }
    return best;
  }

  private resembles(word: string): boolean {
    const known = this.resemblance.get(word);
    if (known !== undefined) return known;
    const tokens = prepareName(word, 'entity').tokens;
    const like = tokens.some((t) => this.nameTokens.some((n) => alike(t, n)));
    this.resemblance.set(word, like);
    return like;
  }
}

/** The words of a headline without the punctuation around them (GDELT spaces it: "Police : ..."). */
export function titleWords(title: string): string[] {
  return title
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w.length > 0);
}

function alike(t: PreparedToken, n: PreparedToken): boolean {
  if (t.text === n.text) return true;
  if (t.cls !== 'word' || n.cls !== 'word') return false;
  return (
    t.groups.some((g) => n.groups.includes(g)) ||
    jaroWinkler(t.text, n.text) >= TITLE_WORD_PREFILTER_SIMILARITY
  );
}
