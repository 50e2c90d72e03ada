import { kindMismatched, kindMismatchThreshold, mismatchedKinds } from './kind-mismatch.js';
import { type PreparedQuery, prepareQuery } from './prepared-query.js';
import { spelledOut } from './spelled-out.js';
import type { EntityMatch, PreparedSearchOptions, SearchOptions } from './types.js';

/** What a query search needs of an index: one search of one prepared reading. */
export interface PreparedSearch {
  searchPrepared(query: PreparedQuery, options: PreparedSearchOptions): Map<string, EntityMatch[]>;
}

/**
 * Per source, the entities scoring at least the threshold for `text` as a query of `options.type`,
 * best first, at most `limitPerSource`: the best of every reading of the text (as written and, for
 * a name written letter by letter, as spelled: spelled-out.ts), and of every kind of record. The
 * query's own kinds (and records of no stated kind) at the threshold; the other kinds only by a
 * strong match of the name read by their rules, scaled and marked (kind-mismatch.ts).
 */
export function searchQuery(
  index: PreparedSearch,
  text: string,
  options: SearchOptions,
): Map<string, EntityMatch[]> {
  const { type, ...rest } = options;
  const spelled = spelledOut(text);
  const readings = spelled === null ? [text] : [text, spelled];
  const found: Map<string, EntityMatch[]>[] = [];
  for (const reading of readings) {
    found.push(index.searchPrepared(prepareQuery(reading, type), rest));
    for (const { readAs, kinds } of mismatchedKinds(type)) {
      const asked = options.kinds ? kinds.filter((kind) => options.kinds!.includes(kind)) : kinds;
      if (asked.length === 0) continue;
      const strong = index.searchPrepared(prepareQuery(reading, readAs), {
        ...rest,
        kinds: asked,
        threshold: kindMismatchThreshold(options.threshold),
      });
      for (const matches of strong.values())
        matches.forEach((match, k) => {
          matches[k] = kindMismatched(match, type);
        });
      found.push(strong);
    }
  }
  return found.length === 1 ? found[0]! : bestPerSource(found, options.limitPerSource);
}

/** Each entity's best match over `found`, per source best first (ties by key), at most `limit`. */
function bestPerSource(found: readonly Map<string, EntityMatch[]>[], limit: number) {
  const best = new Map<string, Map<string, EntityMatch>>();
  for (const bySource of found) {
    for (const [source, matches] of bySource) {
      const entities = best.get(source) ?? new Map<string, EntityMatch>();
      best.set(source, entities);
      for (const match of matches) {
        const known = entities.get(match.key);
        if (!known || match.score > known.score) entities.set(match.key, match);
      }
    }
  }
  const out = new Map<string, EntityMatch[]>();
  for (const [source, entities] of best) {
    const ranked = [...entities.values()].sort(
      (a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    out.set(source, ranked.slice(0, limit));
  }
  return out;
}
