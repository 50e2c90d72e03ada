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
