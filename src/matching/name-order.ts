import { canAnchor } from './anchors.js';
import type { PreparedName } from './prepared.js';

/**
 * The order in which an index stores its names: names that share their commonest words side by
 * side. A query retrieves names through the postings of the words it is anchored to, and for a
 * common word (MOHAMMED, ALI, TRADING) that is thousands of names whose per-name records (the
 * name ceiling's, the collector's scratch) are then read one cache line each; in listing order
 * those lines are scattered across megabytes and nearly every read misses the cache. Sorted by
 * their two commonest anchoring words, the names holding a word form a few runs (its own block,
 * and a sub-block inside each commoner word's block), which the processor reads ahead.
 *
 * Only memory order changes: a search gives the same results in any order (the index breaks ties
 * between an entity's names by their listing position, not by their place here).
 *
 * Returns the listing position of the name to store at each place.
 */
export function clusteredNameOrder(prepared: readonly PreparedName[]): Int32Array {
  const frequency = new Map<number, number>();
  for (const name of prepared) {
    for (const t of name.tokens) if (canAnchor(t)) frequency.set(t.id, (frequency.get(t.id) ?? 0) + 1);
  }
  // Rank 0 is the commonest word; ties by token id, so the order is deterministic.
  const byFrequency = [...frequency.keys()].sort((a, b) => frequency.get(b)! - frequency.get(a)! || a - b);
  const rank = new Map(byFrequency.map((id, r) => [id, r]));
  const none = byFrequency.length;
  // One sortable integer per name: rank of its commonest word, of its second (when three fields
  // fit in 64 bits: up to two million names and words), listing position.
  const bits = BigInt(Math.max(1, Math.ceil(Math.log2(Math.max(prepared.length, none + 1)))));
  const twoRanks = 3n * bits <= 64n;
  const keys = new BigUint64Array(prepared.length);
  prepared.forEach((name, n) => {
    let first = none;
    let second = none;
    for (const t of name.tokens) {
      if (!canAnchor(t)) continue;
      const r = rank.get(t.id)!;
      if (r < first) [first, second] = [r, first];
      else if (r > first && r < second) second = r;
    }
    const ranks = twoRanks ? (BigInt(first) << bits) | BigInt(second) : BigInt(first);
    keys[n] = (ranks << bits) | BigInt(n);
  });
  keys.sort();
  const positionMask = (1n << bits) - 1n;
  return Int32Array.from(keys, (key) => Number(key & positionMask));
}
