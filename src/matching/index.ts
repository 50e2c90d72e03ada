/** Public API of the name-matching engine: pure code, no I/O, no clock, no configuration reads. */
export { compareNames, type NameComparison } from './compare.js';
export {
  type FactIdentifier,
  type FactOutcome,
  identifierKindsMeet,
  type QueryFacts,
  type RecordFacts,
  weighFacts,
} from './facts.js';
export { normaliseIdentifier } from './identifiers.js';
export { jaroWinkler, jaroWinklerCodes } from './jaro-winkler.js';
export { type CombinedPart, NameIndex, NameIndexBuilder } from './name-index.js';
export { prepareName } from './prepare.js';
export type { PreparedName, PreparedToken, TokenClass } from './prepared.js';
export { type PreparedQuery, prepareQuery } from './prepared-query.js';
export { kindsMatchedBy, rulesOf } from './query-type.js';
export { SharedVocabulary } from './shared-vocabulary.js';
export type {
  EntityKind,
  EntityMatch,
  MatchableEntity,
  MatchableName,
  MatchExplanation,
  NameRules,
  NameType,
  PenaltyExplanation,
  PreparedSearchOptions,
  QueryType,
  SearchOptions,
  TokenPairExplanation,
} from './types.js';
export { QUERY_TYPES } from './types.js';
