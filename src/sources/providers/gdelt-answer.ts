import { ProviderError } from './provider-error.js';

/** One article of GDELT's `artlist` answer, with only the fields that were valid. */
export interface GdeltArticle {
  url: string;
  title: string;
  domain: string | null;
  language: string | null;
  sourceCountry: string | null;
  /** ISO 8601 (GDELT writes `20240615T170000Z`). */
  seenAt: string | null;
}

/** What a GDELT answer means: articles (possibly none), or a failure to report. */
export type GdeltAnswer = { articles: GdeltArticle[] } | { failure: ProviderError };

const PROVIDER = 'gdelt';
/** The longest part of a GDELT message quoted in an error (it is untrusted text). */
const QUOTED_MESSAGE_MAX_CHARS = 120;

/**
 * Reads a GDELT DOC 2.0 answer. GDELT answers HTTP 200 in every case it considers the caller's:
 * JSON for a search (`{}` when nothing matched), a plain sentence for a query it refuses. Those
 * sentences are sorted here:
 * - "The specified phrase is too short", or "too short or too long" for a name without a word of
 *   three letters: the name is shorter than anything GDELT can search, for every caller and every
 *   time. That is an empty result: GDELT holds no article it could find for it (and a failure here
 *   would count against GDELT's circuit breaker and skip it for every customer).
 * - "Please limit requests ...": GDELT's rate limit, a failure (not retried: retries prolong it).
 * - any other sentence (syntax, illegal character, length with a longer name) is a query this
 *   service built wrongly: a failure, with GDELT's words, so that it is seen and fixed.
 */
export function readGdeltAnswer(body: string, name: string): GdeltAnswer {
  const text = body.trim();
  if (text.startsWith('{')) return readArticles(text);
  if (text.length === 0) return fail('malformed', 'answered with an empty body');
  if (/limit requests/i.test(text)) return fail('http_status', 'asked to slow down (rate limited)', 429);
  if (/phrase is too short/i.test(text) || (/too short/i.test(text) && !hasSearchableWord(name))) {
    return { articles: [] };
  }
  if (/^\s*</.test(text)) return fail('malformed', 'answered with an HTML page instead of JSON');
  return fail('malformed', `rejected the query: ${quoted(text)}`);
}

/** GDELT does not search words under three letters ("BP", "Li Na"). */
function hasSearchableWord(name: string): boolean {
  return name.split(/[^\p{L}\p{N}]+/u).some((word) => [...word].length >= 3);
}

function readArticles(text: string): GdeltAnswer {
  const parsed = parseLenient(text);
  if (parsed === undefined || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('malformed', 'the answer is not valid JSON');
  }
  const list = (parsed as { articles?: unknown }).articles;
  if (list === undefined) return { articles: [] };
  if (!Array.isArray(list)) return fail('malformed', 'the answer has no article list');
  return { articles: list.flatMap((item) => readArticle(item) ?? []) };
}

/**
 * GDELT's JSON is known to carry raw control characters and stray backslashes inside titles;
 * repairing those two defects keeps a whole answer from being lost to one bad title.
 */
function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const repaired = text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/[\u0000-\u001f]/g, ' ')
      .replace(/\\(?!["\\/bfnrtu])/g, '\\\\');
    try {
      return JSON.parse(repaired);
    } catch {
      return undefined;
    }
  }
}

function readArticle(item: unknown): GdeltArticle | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const raw = item as Record<string, unknown>;
  const url = text(raw.url);
  const title = text(raw.title);
  if (!url || !title || !/^https?:\/\//i.test(url)) return undefined;
  return {
    url,
    title,
    domain: text(raw.domain),
    language: text(raw.language),
    sourceCountry: text(raw.sourcecountry),
    seenAt: seenAt(text(raw.seendate)),
  };
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : null;
}

function seenAt(value: string | null): string | null {
  const m = value?.match(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : null;
}

function quoted(message: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: untrusted text goes into an error message
  const clean = message.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > QUOTED_MESSAGE_MAX_CHARS ? `${clean.slice(0, QUOTED_MESSAGE_MAX_CHARS)}...` : clean;
}

function fail(failure: ProviderError['failure'], detail: string, status?: number): GdeltAnswer {
  return { failure: new ProviderError(PROVIDER, failure, detail, status) };
}
