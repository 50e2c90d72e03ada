import type { EntityKind, ListEntity, NameType } from '../list-entity.js';
import type { ListSnapshotMeta } from './snapshot-store.js';

/** What the name index reads of an entity (the matching engine's `MatchableEntity`, structurally). */
export interface MatchableEntity {
  /** `${source}:${source_id}` */
  key: string;
  source: string;
  kind: EntityKind;
  names: { full: string; type: NameType; script?: string }[];
}

/** Builds the search index of one list version; the matching engine's `NameIndex.build`. */
export type IndexBuilder<TIndex> = (entities: Iterable<MatchableEntity>) => TIndex;

/** One list version in memory: its entities, and its index when an index builder is configured. */
export interface LoadedList<TIndex> {
  readonly meta: ListSnapshotMeta;
  readonly entities: readonly ListEntity[];
  readonly bySourceId: ReadonlyMap<string, ListEntity>;
  readonly index: TIndex | undefined;
}

/**
 * Every loaded list at one moment. Never changed after it is made: a screening takes the view
 * once and uses it to the end, so a swap in the middle cannot mix two versions in one answer.
 */
export interface ListsView<TIndex> {
  readonly lists: ReadonlyMap<string, LoadedList<TIndex>>;
  /** The entity behind a search hit's key (`${source}:${source_id}`). */
  entity(key: string): ListEntity | undefined;
}

/** Raised for a list that is enabled but has no version in memory: a failed source, never "no match". */
export class ListUnavailableError extends Error {
  override readonly name = 'ListUnavailableError';

  constructor(readonly listId: string) {
    super(`The list ${listId} is not loaded (no stored version and its source could not be read).`);
  }
}

export function matchableEntity(entity: ListEntity): MatchableEntity {
  return {
    key: `${entity.source}:${entity.source_id}`,
    source: entity.source,
    kind: entity.kind,
    names: entity.names.map((name) =>
      name.script
        ? { full: name.full, type: name.type, script: name.script }
        : { full: name.full, type: name.type },
    ),
  };
}

class View<TIndex> implements ListsView<TIndex> {
  constructor(readonly lists: ReadonlyMap<string, LoadedList<TIndex>>) {}

  entity(key: string): ListEntity | undefined {
    const colon = key.indexOf(':');
    if (colon < 0) return undefined;
    return this.lists.get(key.slice(0, colon))?.bySourceId.get(key.slice(colon + 1));
  }
}

/**
 * The lists in memory, one index per list. A new version is prepared completely (entity map and
 * index) beside the one in service, then installed by replacing one immutable view reference, so
 * screenings in flight finish on the view they took. Per-list indexes mean a refresh of a small
 * list does not rebuild the index of the large ones (see docs/benchmarks.md).
 */
export class LoadedLists<TIndex = never> {
  private view: ListsView<TIndex> = new View(new Map());

  constructor(private readonly buildIndex?: IndexBuilder<TIndex>) {}

  current(): ListsView<TIndex> {
    return this.view;
  }

  /** Prepares a version for installation; the slow part, done before the swap. */
  prepare(meta: ListSnapshotMeta, entities: readonly ListEntity[]): LoadedList<TIndex> {
    const bySourceId = new Map<string, ListEntity>();
    for (const entity of entities) bySourceId.set(entity.source_id, entity);
    const index = this.buildIndex ? this.buildIndex(iterateMatchable(entities)) : undefined;
    return { meta, entities, bySourceId, index };
  }

  /** Puts a prepared version in service (or takes a list out with `undefined`). */
  install(listId: string, list: LoadedList<TIndex> | undefined): void {
    const next = new Map(this.view.lists);
    if (list) next.set(listId, list);
    else next.delete(listId);
    this.view = new View(next);
  }

  get(listId: string): LoadedList<TIndex> | undefined {
    return this.view.lists.get(listId);
  }
}

function* iterateMatchable(entities: readonly ListEntity[]): Iterable<MatchableEntity> {
  for (const entity of entities) yield matchableEntity(entity);
}
