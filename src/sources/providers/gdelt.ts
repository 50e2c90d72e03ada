import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import type { QueryType } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import { explanationForApi } from '../list-flag.js';
import type { SourceQuery } from '../source.js';
import { adverseTermsIn } from './adverse-terms.js';
import { distinctStories } from './article-dedup.js';
import { type GdeltArticle, readGdeltAnswer } from './gdelt-answer.js';
import { gdeltSearchParams } from './gdelt-query.js';
import type { ProviderHttp } from './provider-http.js';
import type { ProviderSettings } from './provider-settings.js';
import type { ProviderAdapter } from './provider-source.js';
import { type TitleMatch, TitleMatcher } from './title-match.js';

/** At most this many articles (distinct stories) become flags for one screening. */
export const GDELT_MAX_ARTICLES = 10;
/**
 * How long GDELT's articles for a name are reused: the lifetime of a screening result
 * (RESULT_CACHE_TTL_MS in screening/screening-policy.ts, which sources/ may not import; a unit
 * test holds the two equal). The result cache keys on the whole request; this one on the name
 * alone, so a burst of screenings of one name with other thresholds, types or accounts asks once.
 */
export const GDELT_ARTICLES_CACHE_TTL_MS = 6 * 60 * 60 * 1000;
/** Names whose articles are kept in memory (a few kilobytes each). */
export const GDELT_CACHE_MAX_NAMES = 5_000;

/** GDELT's articles for a name, and their headlines scored for each query type asked so far. */
interface NameArticles {
  articles: GdeltArticle[];
  scored: Map<QueryType, ScoredArticle[]>;
}

/**
 * Adverse media from the GDELT DOC 2.0 API: recent articles that name the party together with an
 * adverse term, kept when their headline names the party (scored by the service's matcher).
 *
 * The cache is in the process (lru-cache) rather than the shared result cache: it only spares GDELT
 * repeated questions, so an instance that misses it costs one more call, not a wrong answer; and
 * keeping it here needs no new dependency between providers and the stores. Concurrent screenings
 * of one name share one call.
 */
export class GdeltAdapter implements ProviderAdapter {
  readonly id = 'gdelt';
  readonly kind = 'adverse_media' as const;
  private readonly cache: LRUCache<string, NameArticles>;
  private readonly inFlight = new Map<string, Promise<NameArticles>>();

  constructor(
    private readonly http: ProviderHttp,
    private readonly settings: ProviderSettings['gdelt'],
    clock: Clock,
  ) {
    this.cache = new LRUCache({
      max: GDELT_CACHE_MAX_NAMES,
      ttl: GDELT_ARTICLES_CACHE_TTL_MS,
      // The service's clock, read at every look-up (no debounce), so that the lifetime follows
      // the clock tests move.
      perf: { now: () => clock.now().getTime() },
      ttlResolution: 0,
    });
  }

  async search(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    // The query is already trimmed, NFKC-normalised, case-folded and single-spaced.
    const name = query.entity;
    const found = await this.articlesFor(name, signal);
    let scored = found.scored.get(query.type);
    if (!scored) {
      scored = scoreArticles(found.articles, name, query.type);
      found.scored.set(query.type, scored);
    }
    return adverseMediaFlags(scored, query);
  }

  private articlesFor(key: string, signal: AbortSignal): Promise<NameArticles> {
    const cached = this.cache.get(key);
    if (cached) return Promise.resolve(cached);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fetchArticles(key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return untilAborted(pending, signal);
  }

  /**
   * One call, shared by every screening waiting for the name: it is not tied to any one caller's
   * signal (a caller that gives up leaves it to the others); the provider budget bounds it.
   */
  private async fetchArticles(name: string): Promise<NameArticles> {
    if (!/[\p{L}\p{N}]/u.test(name)) return { articles: [], scored: new Map() };
    const url = new URL(this.settings.url);
    for (const [key, value] of gdeltSearchParams(name, this.settings.timespanMonths))
      url.searchParams.set(key, value);
    const body = await this.http.text({ url }, new AbortController().signal);
    const answer = readGdeltAnswer(body, name);
    if ('failure' in answer) throw answer.failure;
    const found: NameArticles = { articles: answer.articles, scored: new Map() };
    this.cache.set(name, found);
    return found;
  }
}

/** An article and how well its headline names the party (undefined: not at all). */
export interface ScoredArticle {
  article: GdeltArticle;
  match: TitleMatch | undefined;
}

/** Every article with the best match of the name in its headline (the costly part: done once per name and type). */
export function scoreArticles(
  articles: readonly GdeltArticle[],
  name: string,
  type: QueryType,
): ScoredArticle[] {
  const matcher = new TitleMatcher(name, type);
  return articles.map((article) => ({ article, match: matcher.match(article.title) }));
}

/**
 * The flags of the articles whose headline names the queried party at or above the threshold,
 * strongest match first (newest first among equals), one per story, at most {@link GDELT_MAX_ARTICLES}.
 */
export function adverseMediaFlags(scored: readonly ScoredArticle[], query: SourceQuery): Flag[] {
  const matched = scored.flatMap(({ article, match }) =>
    match && match.score >= query.threshold ? [{ article, match }] : [],
  );
  matched.sort(
    (a, b) => b.match.score - a.match.score || (b.article.seenAt ?? '').localeCompare(a.article.seenAt ?? ''),
  );
  const max = Math.min(GDELT_MAX_ARTICLES, query.limit);
  return distinctStories(matched, ({ article }) => article, max).map(({ article, match }) => ({
    type: 'adverse_media',
    source: 'gdelt',
    list: 'ADVERSE_MEDIA',
    match_score: match.score,
    details: {
      title: article.title,
      url: article.url,
      domain: article.domain,
      language: article.language,
      source_country: article.sourceCountry,
      seen_date: article.seenAt,
      adverse_terms: adverseTermsIn(article.title),
      matched_name: match.matchedText,
      match_explanation: explanationForApi(match.explanation),
    },
  }));
}

/** The promise's outcome, or the signal's reason as soon as the caller stops waiting. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
