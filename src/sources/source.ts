import type { QueryFacts, QueryType } from '../matching/index.js';
import type { Flag } from './flag.js';
import type { StaleSource } from './stale-source.js';

export type SourceKind = 'direct_feed' | 'watchlist_provider' | 'adverse_media' | 'corporate_registry';
export type SourceHealth = 'up' | 'slow' | 'down';

/** What every source receives: the normalised query and the request's options. */
export interface SourceQuery {
  /** The query trimmed, NFKC-normalised and case-folded. */
  entity: string;
  type: QueryType;
  threshold: number;
  /** At most this many flags per source. */
  limit: number;
  /** What the request says of the party besides the name (birth date, countries, identifiers). */
  facts?: QueryFacts | undefined;
  /** No name was given: the party is looked up by its identifiers alone. */
  identifiersOnly?: boolean | undefined;
}

/**
 * One screening source (its id is one of src/screening/source-ids.ts). The orchestrator calls every selected
 * source in parallel, each with its own timeout; `screen` must honour the signal and reject when it
 * cannot answer (never answer "no match" for "could not look").
 */
export interface Source {
  id: string;
  kind: SourceKind;
  /** Per-source timeout; in-process lists answer at once, remote providers get seconds. */
  timeoutMs: number;
  screen(query: SourceQuery, signal: AbortSignal): Promise<Flag[]>;
  health(): SourceHealth;
  /**
   * Whether the source has anything to say about a query of this type; absent means every type. A
   * source that does not apply is not asked and not reported (an empty answer from a registry that
   * cannot hold such a party would read as "checked, nothing found").
   */
  appliesTo?(type: QueryType): boolean;
  /** The data version the answer depends on (list content hash), part of the cache key. */
  version(): string | undefined;
  /** A list's version in service when it is stale (it still answers); absent for other sources. */
  staleness?(): StaleSource | undefined;
}
