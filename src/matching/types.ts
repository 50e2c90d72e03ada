/** How a list presents a name: the primary name, an alias, a former alias, a weak alias or an original-script form. */
export type NameType = 'primary' | 'aka' | 'fka' | 'weak_aka' | 'original_script';

export type EntityKind = 'person' | 'organization' | 'vessel' | 'aircraft' | 'unknown';

export interface MatchableName {
  full: string;
  type: NameType;
  script?: string;
}

export interface MatchableEntity {
  /** Unique across the index, e.g. `${source}:${source_id}`. */
  key: string;
  source: string;
  kind: EntityKind;
  names: MatchableName[];
}

/**
 * What the query names: a person, an organisation, a vessel or an aircraft, each matched against
 * listed records of that kind (and records whose kind the list does not state); `entity` matches
 * every kind.
 */
export const QUERY_TYPES = ['person', 'organization', 'vessel', 'aircraft', 'entity'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

/** Which rules prepare a name: person rules (reordering, titles) or entity rules (legal forms, acronyms). */
export type NameRules = 'person' | 'entity';

export interface SearchOptions {
  type: QueryType;
  /** Minimum match score in [0, 1] a result must reach. */
  threshold: number;
  sources?: string[];
  kinds?: EntityKind[];
  limitPerSource: number;
}

/** Options of a search whose query was prepared beforehand (it carries its own type). */
export type PreparedSearchOptions = Omit<SearchOptions, 'type'>;

/** One query token paired with one candidate token (or with two merged tokens). */
export interface TokenPairExplanation {
  query: string;
  candidate: string;
  score: number;
  /** How the pair was judged: identical, equivalent (table), fuzzy (Jaro-Winkler), initial, merged, number. */
  how: 'identical' | 'equivalent' | 'fuzzy' | 'initial' | 'merged' | 'number' | 'legal_form';
}

export interface PenaltyExplanation {
  reason: string;
  /** The factor the score was multiplied by, or the cap it was limited to. */
  factor?: number;
  cap?: number;
  tokens?: string[];
}

/** JSON-serialisable account of one score: it goes into API responses as `match_explanation`. */
export interface MatchExplanation {
  matchedName: string;
  nameType: NameType;
  /**
   * `exact` when the prepared forms are equal; `fuzzy` for two Latin-script names compared as
   * spelt, `transliterated` when a name of another script was romanised to be compared, or
   * `original_script` for two names compared in their shared script; `identifier` for a record
   * found by an identifier of the query, not by name.
   */
  method: 'exact' | 'fuzzy' | 'transliterated' | 'original_script' | 'identifier';
  preparedQuery: string;
  preparedName: string;
  pairs: TokenPairExplanation[];
  unmatchedQuery: string[];
  unmatchedName: string[];
  penalties: PenaltyExplanation[];
  score: number;
}

export interface EntityMatch {
  key: string;
  source: string;
  score: number;
  matchedName: MatchableName;
  explanation: MatchExplanation;
  /** The record is of another kind than the query's type, matched by a strong name (kind-mismatch.ts). */
  kindMismatch?: true;
}
