import type { KeyPostings } from './key-postings.js';
import type { MergePostings } from './merge-postings.js';
import type { NameForms } from './name-forms.js';
import type { NameTable, TokenTable } from './name-table.js';
import type { PreparedName } from './prepared.js';
import type { SharedVocabulary } from './shared-vocabulary.js';
import type { EntityKind, MatchableName } from './types.js';
import type { Vocabulary } from './vocabulary.js';

/** The immutable contents of a name index, built once per list version. */
export interface IndexData {
  readonly entityKeys: readonly string[];
  readonly entitySources: readonly string[];
  readonly entityKinds: readonly EntityKind[];
  /** Per name: the entity it belongs to, the name as listed, and its prepared form. */
  readonly nameEntity: Int32Array;
  /**
   * Per name: its position in the order the entities listed their names. Names are stored in
   * another order (name-order.ts); ties between an entity's names go to the one listed first.
   */
  readonly listedPosition: Int32Array;
  readonly names: readonly MatchableName[];
  readonly prepared: readonly PreparedName[];
  readonly vocabulary: Vocabulary;
  /** The vocabulary's owner and the per-query-token work it shares between indexes. */
  readonly shared: SharedVocabulary;
  /** Names of one prepared form; only each form's lead is posted below, retrieved and bounded. */
  readonly forms: NameForms;
  /**
   * Token id -> ids of the names (form leads) containing it, ascending, once per occurrence (`MOHAMMED ALI
   * MOHAMMED` twice): token t's are `tokenNames.names[tokenNames.start[t] .. tokenNames.start[t + 1])`,
   * for the tokens the vocabulary held when the index was built. One flat array rather than one
   * array per token: a query's expansion checks dozens of tokens for names, and an array object
   * per token would cost a cache miss each.
   */
  readonly tokenNames: TokenNames;
  /**
   * Two adjacent mergeable tokens of a name written together (`AL QAIDA` -> `ALQAIDA`) -> ids of
   * the names holding them, ascending: the names a query word may be the merged form of.
   */
  readonly adjacentJoins: KeyPostings;
  /** Every name's forms that may be a merge of query tokens, for the name ceiling (merge-postings.ts). */
  readonly mergePostings: MergePostings;
  /** The distinct sources; names refer to them by position. */
  readonly sources: readonly string[];
  readonly nameTable: NameTable;
  readonly tokenTable: TokenTable;
}

export interface TokenNames {
  readonly start: Int32Array;
  readonly names: Int32Array;
}
