import { canAnchor, deletionsCanMeet, isMergeable, packedProbeKeys } from './anchors.js';
import type { PackedKeys } from './key-postings.js';
import { prepareName } from './prepare.js';
import type { PreparedName, PreparedToken } from './prepared.js';
import { rulesOf } from './query-type.js';
import type { QueryType } from './types.js';

/**
 * A query prepared once and searched in any number of indexes. Everything here depends on the
 * query alone: its prepared form, the anchor keys each token probes (the deletion neighbourhoods
 * and phonetic codes are most of a search's fixed cost), and the texts merged-token retrieval looks
 * up. A screening searches one index per list with the same query, so this is paid once, not once
 * per list. Immutable, so one object may serve concurrent searches.
 */
export interface PreparedQuery {
  readonly type: QueryType;
  readonly name: PreparedName;
  /** Per query token: the anchor keys it is looked up by, or null when it cannot anchor. */
  readonly probes: readonly (QueryTokenProbes | null)[];
  /** Query tokens i and i + 1 written together, for each mergeable adjacent pair. */
  readonly joined: readonly { readonly text: string; readonly start: number }[];
}

/**
 * A query token's probe keys, packed and hashed the first time an index needs them: an index
 * that has the token's expansion cached (common words) does not, and when every index has it,
 * they are never built.
 */
export class QueryTokenProbes {
  private packed: PackedKeys | undefined;
  private packedWithoutDeletions: PackedKeys | undefined;

  constructor(private readonly token: PreparedToken) {}

  /** The keys to probe a vocabulary whose longest anchoring token has `longest` letters. */
  keysFor(longest: number): PackedKeys {
    if (deletionsCanMeet(this.token.text.length, longest)) {
      this.packed ??= packedProbeKeys(this.token);
      return this.packed;
    }
    this.packedWithoutDeletions ??= packedProbeKeys(this.token, false);
    return this.packedWithoutDeletions;
  }
}

/** Prepares `query` as a query of `type`; see {@link prepareQuery} for the memoised form. */
export function prepareQueryUncached(query: string, type: QueryType): PreparedQuery {
  const name = prepareName(query, rulesOf(type));
  const tokens = name.tokens;
  const probes = tokens.map((token) => (canAnchor(token) ? new QueryTokenProbes(token) : null));
  const joined: { text: string; start: number }[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (isMergeable(tokens[i]!) && isMergeable(tokens[i + 1]!))
      joined.push({ text: tokens[i]!.text + tokens[i + 1]!.text, start: i });
  }
  return { type, name, probes, joined };
}

/**
 * The last few prepared queries. A screening searches every list's index with one query within
 * one synchronous turn, so even a tiny memo turns seven preparations into one; the bound keeps the
 * memory fixed whatever the traffic.
 */
const MEMO_SIZE = 64;
const memo = new Map<string, PreparedQuery>();

/** Prepares a query for `NameIndex.searchPrepared`, reusing a recent preparation of the same text and type. */
export function prepareQuery(query: string, type: QueryType): PreparedQuery {
  const key = `${type}\u0000${query}`;
  const known = memo.get(key);
  if (known) {
    // Refresh its place: the memo evicts the least recently used.
    memo.delete(key);
    memo.set(key, known);
    return known;
  }
  const prepared = prepareQueryUncached(query, type);
  memo.set(key, prepared);
  if (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value!);
  return prepared;
}
