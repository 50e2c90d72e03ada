import type { Flag } from '../sources/flag.js';
import type { RiskLevel } from './risk.js';

/** The answer of `POST /v1/screen` and `GET /v1/screen/:id`. */
export interface ScreeningResult {
  id: string;
  entity: string;
  risk_score: number;
  risk_level: RiskLevel;
  flags: Flag[];
  sources_queried: string[];
  sources_matched: string[];
  cache_hit: boolean;
  duration_ms: number;
  timestamp: string;
}

/** What is stored and cached: the result without `cache_hit`, which belongs to each answer. */
export type StoredResult = Omit<ScreeningResult, 'cache_hit'>;

/** One query type for the whole service: the matching engine's. */
export type { QueryType } from '../matching/index.js';

/** The options that shape a screening's answer, after defaults: part of the cache key and stored. */
export interface EffectiveOptions {
  threshold: number;
  sources: string[];
  include_adverse_media: boolean;
}

/**
 * A result as the UTF-8 bytes of its JSON, encoded once per live screening: the same bytes are
 * stored (as the `json` column's binary form, which is its text), cached, and answered, where a
 * string was encoded again by each of them and copied whole twice more on its way to the socket
 * (docs/benchmarks.md, session 19). A buffer of its own rather than a slice of Node's shared pool:
 * the cache keeps it for hours, and a small result must not keep a whole pool slab alive with it.
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
 * parsing and serialising it again were about half of a cache hit's CPU time (0.32-0.37 ->
 * 0.15-0.20 ms per hit, docs/benchmarks.md).
 */
export function answerBytes(stored: Buffer, cacheHit: boolean, durationMs: number): Buffer {
  const at = stored.lastIndexOf(DURATION_KEY);
  // The key is ASCII, so the rest is read back as the characters it was written as.
  const rest = at < 0 ? '' : stored.toString('latin1', at + DURATION_KEY.length);
  // Anything else (bytes not written by this service) goes the long way.
  if (!STORED_DURATION.test(rest)) {
    const result = JSON.parse(stored.toString('utf8')) as StoredResult;
    return Buffer.from(JSON.stringify({ ...result, cache_hit: cacheHit, duration_ms: durationMs }), 'utf8');
  }
  const tail = `,"cache_hit":${cacheHit}${DURATION_KEY}${JSON.stringify(durationMs)}}`;
  return Buffer.concat([stored.subarray(0, at), Buffer.from(tail, 'latin1')]);
}

/** The stored result the bytes hold (for callers that need it as an object: batch items, the console). */
export function decodeResult(stored: Buffer): StoredResult {
  return JSON.parse(stored.toString('utf8')) as StoredResult;
}

const DURATION_KEY = ',"duration_ms":';
/** What follows the stored result's last key: a number, and the end of the object. */
const STORED_DURATION = /^-?\d+(\.\d+)?([eE][+-]?\d+)?}$/;
