import type { EntityMatch, SearchOptions } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import { identifierMatch, weighed } from '../flag-facts.js';
import type { ListEntity } from '../list-entity.js';
import type { Source, SourceHealth, SourceKind, SourceQuery } from '../source.js';
import type { StaleSource } from '../stale-source.js';
import { IdentifierIndex } from './identifier-index.js';
import { type ListRegistryEntry, registeredList } from './list-registry.js';
import type { ListService } from './list-service.js';
import { ListUnavailableError } from './loaded-lists.js';
import type { PackedEntities } from './packed-entities.js';

/** Lists answer in-process in milliseconds; this bound only guards against a pathological query. */
export const LIST_SOURCE_TIMEOUT_MS = 2_000;

/** A list version's search index, wherever it runs (the service's is in the matching thread). */
export interface SearchableIndex {
  search(query: string, options: SearchOptions): Promise<ReadonlyMap<string, EntityMatch[]>>;
}

/**
 * One loaded list as a screening source. It searches the version in memory when called; a list
 * that is enabled but not loaded fails (a failed source, never "no match"). Its kind and the way
 * its entries become flags come from its registry entry: an official list gives sanctions flags,
 * OpenSanctions' export gives PEP and watchlist flags.
 */
export class ListSource implements Source {
  readonly kind: SourceKind;
  readonly timeoutMs = LIST_SOURCE_TIMEOUT_MS;
  private readonly entry: ListRegistryEntry;

  constructor(
    readonly id: string,
    private readonly lists: ListService<SearchableIndex>,
  ) {
    const entry = registeredList(id);
    if (!entry) throw new Error(`${id} is not a list of the registry.`);
    this.entry = entry;
    this.kind = entry.kind;
  }

  async screen(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    const view = this.lists.view();
    const list = view.lists.get(this.id);
    if (!list?.index) throw new ListUnavailableError(this.id);
    signal.throwIfAborted();
    const results = query.identifiersOnly
      ? new Map<string, EntityMatch[]>()
      : await list.index.search(query.entity, {
          type: query.type,
          threshold: query.threshold,
          limitPerSource: query.limit,
        });
    signal.throwIfAborted();
    const flags: Flag[] = [];
    const flagged = new Set<string>();
    const context = { enabledLists: this.lists.enabledLists() };
    // The record's hash is the one the list version remembers (see PackedEntities.recordHash).
    const flagOf = (entity: ListEntity, match: EntityMatch) =>
      weighed(
        {
          ...this.entry.toFlag(entity, match, context),
          recordHash: list.entities.recordHash(entity.source_id),
        },
        entity,
        query.facts,
      );
    for (const match of results.get(this.id) ?? []) {
      const entity = view.entity(match.key);
      if (!entity) continue;
      flagged.add(entity.source_id);
      flags.push(flagOf(entity, match));
    }
    // A record holding one of the query's identifiers is flagged whatever its name scored.
    const identifiers = query.facts?.identifiers;
    if (identifiers) {
      for (const sourceId of identifierIndex(list.entities).candidates(identifiers)) {
        if (flagged.has(sourceId)) continue;
        const entity = list.entities.get(sourceId);
        if (!entity) continue;
        const flag = flagOf(entity, identifierMatch(entity));
        if (flag.match_score === 1) flags.push(flag);
      }
    }
    return flags;
  }

  health(): SourceHealth {
    return this.lists.health()[this.id] ?? 'down';
  }

  version(): string | undefined {
    return this.lists.view().lists.get(this.id)?.meta.version;
  }

  staleness(): StaleSource | undefined {
    return this.lists.staleness(this.id);
  }
}

const identifierIndexes = new WeakMap<PackedEntities, IdentifierIndex>();

function identifierIndex(entities: PackedEntities): IdentifierIndex {
  let index = identifierIndexes.get(entities);
  if (!index) {
    index = new IdentifierIndex(entities);
    identifierIndexes.set(entities, index);
  }
  return index;
}
