import type { ListEntity } from '../list-entity.js';
import { PackedEntities } from './packed-entities.js';
import { chunkNames, type SnapshotChunk } from './snapshot-chunks.js';
import type { ListSnapshotMeta } from './snapshot-store.js';

/**
 * Builds the search index of each list version and lets it go when the version leaves service (in
 * the service, the matching thread: see matching-thread.ts).
 */
export interface ListIndexer<TIndex> {
  /** The index of the version stored as `chunks` (from their names). */
  build(chunks: readonly SnapshotChunk[]): Promise<TIndex>;
  /** The version of `index` left service; searches already asked of it are still answered. */
  release(index: TIndex): void;
}

/** One list version in memory: its entities, and its index when an index builder is configured. */
export interface LoadedList<TIndex> {
  readonly meta: ListSnapshotMeta;
  readonly entities: PackedEntities;
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

class View<TIndex> implements ListsView<TIndex> {
  constructor(readonly lists: ReadonlyMap<string, LoadedList<TIndex>>) {}

  entity(key: string): ListEntity | undefined {
    const colon = key.indexOf(':');
    if (colon < 0) return undefined;
    return this.lists.get(key.slice(0, colon))?.entities.get(key.slice(colon + 1));
  }
}

/**
 * The lists in memory, one index per list. A new version is prepared completely (entities and
 * index) beside the one in service, then installed by replacing one immutable view reference, so
 * screenings in flight finish on the view they took. Per-list indexes mean a refresh of a small
 * list does not rebuild the index of the large ones.
 */
export class LoadedLists<TIndex = never> {
  private view: ListsView<TIndex> = new View(new Map());

  constructor(private readonly indexer?: ListIndexer<TIndex>) {}

  current(): ListsView<TIndex> {
    return this.view;
  }

  /**
   * Prepares a version for installation from its stored chunks; the slow part, done before the
   * swap. Only the names are parsed here (the entities' ordinals need their ids; the indexer
   * parses them again where it builds), and the records stay text.
   */
  async prepare(meta: ListSnapshotMeta, chunks: readonly SnapshotChunk[]): Promise<LoadedList<TIndex>> {
    const names = chunks.map(chunkNames);
    const entities = new PackedEntities(chunks, names);
    const index = this.indexer ? await this.indexer.build(chunks) : undefined;
    return { meta, entities, index };
  }

  /**
   * Puts a prepared version in service (or takes a list out with `undefined`) and releases the
   * index of the version it replaces.
   */
  install(listId: string, list: LoadedList<TIndex> | undefined): void {
    const replaced = this.view.lists.get(listId);
    const next = new Map(this.view.lists);
    if (list) next.set(listId, list);
    else next.delete(listId);
    this.view = new View(next);
    if (replaced?.index !== undefined && replaced.index !== list?.index)
      this.indexer?.release(replaced.index);
  }

  /** Lets go of a prepared version that will not be installed. */
  discard(list: LoadedList<TIndex>): void {
    if (list.index !== undefined) this.indexer?.release(list.index);
  }

  get(listId: string): LoadedList<TIndex> | undefined {
    return this.view.lists.get(listId);
  }
}
