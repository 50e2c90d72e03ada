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
 * The answer's JSON from a stored result's JSON (`JSON.stringify` of a `StoredResult`, whose last
 * key is `duration_ms`): the stored text with `cache_hit` and this answer's `duration_ms` in place
 * of the stored one. A live screening is serialised once for its row, the cache and the webhook,
 * and a cache hit is answered from the cached text without parsing it: a result is ~10 KB of JSON,
 * and parsing and serialising it again were about half of a cache hit's CPU time (0.32-0.37 ->
 * 0.15-0.20 ms per hit, docs/benchmarks.md).
 */
export function answerJson(storedJson: string, cacheHit: boolean, durationMs: number): string {
  const at = storedJson.lastIndexOf(DURATION_KEY);
  const rest = at < 0 ? '' : storedJson.slice(at + DURATION_KEY.length);
  // Anything else (a text not written by this service) goes the long way.
  if (!STORED_DURATION.test(rest)) {
    const stored = JSON.parse(storedJson) as StoredResult;
    return JSON.stringify({ ...stored, cache_hit: cacheHit, duration_ms: durationMs });
  }
  return `${storedJson.slice(0, at)},"cache_hit":${cacheHit}${DURATION_KEY}${JSON.stringify(durationMs)}}`;
}

const DURATION_KEY = ',"duration_ms":';
/** What follows the stored result's last key: a number, and the end of the object. */
const STORED_DURATION = /^-?\d+(\.\d+)?([eE][+-]?\d+)?}$/;
