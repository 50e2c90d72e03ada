import { type AnchorKeys, anchorKeys } from '../../../src/matching/anchors.js';
import { type KeyedName, scoreKeyedNames } from '../../../src/matching/compare.js';
import { nameTypeAdjusted, preparationFor } from '../../../src/matching/entity-score.js';
import { prepareName } from '../../../src/matching/prepare.js';
import type { PreparedName } from '../../../src/matching/prepared.js';
import { kindsMatchedBy } from '../../../src/matching/query-type.js';
import type { MatchableEntity, QueryType } from '../../../src/matching/types.js';

/**
 * The reference the index is held to: every name of every entity scored against the query, no
 * candidate retrieval at all.
 */
export class BruteForce {
  private readonly keysByToken = new Map<string, AnchorKeys>();
  private readonly names: {
    entity: MatchableEntity;
    keyed: KeyedName;
    type: MatchableEntity['names'][number]['type'];
  }[] = [];

  constructor(entities: readonly MatchableEntity[]) {
    for (const entity of entities) {
      for (const name of entity.names) {
        const prepared = prepareName(name.full, preparationFor(entity.kind));
        if (prepared.tokens.length > 0)
          this.names.push({ entity, keyed: this.key(prepared), type: name.type });
      }
    }
  }

  private key(name: PreparedName): KeyedName {
    const keys = name.tokens.map((t) => {
      const id = `${t.cls}|${t.abjad}|${t.text}`;
      const known = this.keysByToken.get(id);
      if (known) return known;
      const keys = anchorKeys(t);
      this.keysByToken.set(id, keys);
      return keys;
    });
    return { name, keys };
  }

  /** Entity key -> best score, for every entity at or above `threshold`. */
  search(query: string, type: QueryType, threshold: number): Map<string, number> {
    const q = this.key(prepareName(query, type));
    const kinds = kindsMatchedBy(type);
    const best = new Map<string, number>();
    for (const { entity, keyed, type: nameType } of this.names) {
      if (kinds && !kinds.includes(entity.kind)) continue;
      const score = nameTypeAdjusted(scoreKeyedNames(q, keyed).score, nameType);
      if (score >= threshold && score > (best.get(entity.key) ?? -1)) best.set(entity.key, score);
    }
    return best;
  }
}
