import type { Flag } from '../sources/flag.js';
import type { FailedSource } from '../sources/source-failure.js';
import type { StaleSource } from '../sources/stale-source.js';
import type { Actor } from '../store/schema.js';
import type { RiskLevel } from './risk.js';
import type { ScreenedRequest } from './screened-request.js';

/** An analyst's decision on a listed record for one subject, as a flag it applies to carries it. */
export interface AppliedDecision {
  id: string;
  value: DecisionValue;
  note: string;
  decided_by: DecidedBy;
  decided_at: string;
}

export type DecisionValue = 'false_positive' | 'true_match';

/** Who took a decision: an API key, or a dashboard user. */
export type DecidedBy = Actor;

/**
 * A flag as a screening reports it: with the id of the listed record (stable across screenings,
 * see flag-identity.ts), and the decision taken on that record for this subject, if one applies.
 */
export interface ScreenedFlag extends Flag {
  id: string;
  decision?: AppliedDecision;
}

/** The answer of `POST /v1/screen` and `GET /v1/screen/:id`. */
export interface ScreeningResult {
  id: string;
  entity: string;
  /** The caller's own id of the party, when the request gave one. */
  reference?: string;
  /** What was asked, as screened; null for a screening stored before requests were recorded. */
  request: ScreenedRequest | null;
  risk_score: number;
  risk_level: RiskLevel;
  flags: ScreenedFlag[];
  sources_queried: string[];
  sources_matched: string[];
  /** Selected sources that gave no answer, and why; empty when every one answered. */
  sources_failed: FailedSource[];
  /** False when a selected official list gave no answer: "no flag" then does not mean "not listed". */
  complete: boolean;
  /** Selected lists searched although stale (published too long ago), with their date and age. */
  sources_stale: StaleSource[];
  cache_hit: boolean;
  duration_ms: number;
  timestamp: string;
}

/** What is stored and cached: the result without `cache_hit`, which belongs to each answer. */
export type StoredResult = Omit<ScreeningResult, 'cache_hit'>;

/** One query type for the whole service: the matching engine's. */
export { QUERY_TYPES, type QueryType } from '../matching/index.js';

/** The options that shape a screening's answer, after defaults: part of the cache key and stored. */
export interface EffectiveOptions {
  threshold: number;
  sources: string[];
  include_adverse_media: boolean;
}

/**
 * A result as the UTF-8 bytes of its JSON, encoded once per live screening: the same bytes are
 * stored (as the `json` column's binary form, which is its text), cached, and answered, where a
 * string was encoded again by each of them and copied whole twice more on its way to the socket,
 * garbage that lengthened the main thread's collections. A buffer of its own rather than a slice of
 * Node's shared pool: the cache keeps it for hours, and a small result must not keep a whole pool
 * slab alive with it.
 */
export function encodeResult(result: StoredResult): Buffer {
  const json = JSON.stringify(result);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json, 'utf8'));
  bytes.write(json, 'utf8');
  return bytes;
}

/**
 * The answer's JSON bytes from a stored result's (`encodeResult`, whose last key is `duration_ms`):
 * the stored bytes with `cache_hit` and this answer's `duration_ms` in place of the stored one. A
 * live screening is serialised once for its row, the cache and the answer, and a cache hit is
 * answered from the cached bytes without decoding or parsing them: a result is ~10 KB of JSON, and
 * parsing and serialising it again were about half of a cache hit's CPU time.
 */
export function answerBytes(stored: Buffer, cacheHit: boolean, durationMs: number): Buffer {
  const at = durationKeyAt(stored);
  // Live results are encoded here and cached ones checked before use (`looksLikeStoredResult`).
  if (at < 0) throw new Error('The bytes do not hold a stored result.');
  const tail = `,"cache_hit":${cacheHit}${DURATION_KEY}${JSON.stringify(durationMs)}}`;
  return Buffer.concat([stored.subarray(0, at), Buffer.from(tail, 'latin1')]);
}

/**
 * Whether bytes end as `encodeResult` ends a result (with its `duration_ms`): a cached value that
 * does not (a foreign or damaged one) is better treated as a miss than answered, or failed, after
 * its screening was counted.
 */
export function looksLikeStoredResult(bytes: Buffer): boolean {
  return durationKeyAt(bytes) >= 0;
}

/**
 * Where the result's last key, `duration_ms`, starts, when only its number and the object's end
 * follow it; -1 otherwise. Every byte of a multi-byte UTF-8 character is 0x80 or more, so the ASCII
 * key is only ever found on a character boundary, and such bytes read as Latin-1 cannot match the
 * number's pattern.
 */
function durationKeyAt(bytes: Buffer): number {
  const at = bytes.lastIndexOf(DURATION_KEY);
  if (at < 0) return -1;
  return STORED_DURATION.test(bytes.toString('latin1', at + DURATION_KEY.length)) ? at : -1;
}

/** The stored result the bytes hold (for callers that need it as an object: batch items, the console). */
export function decodeResult(stored: Buffer): StoredResult {
  return JSON.parse(stored.toString('utf8')) as StoredResult;
}

const DURATION_KEY = ',"duration_ms":';
/** What follows the stored result's last key: a number, and the end of the object. */
const STORED_DURATION = /^-?\d+(\.\d+)?([eE][+-]?\d+)?}$/;
