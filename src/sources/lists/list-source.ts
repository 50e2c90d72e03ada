import type { EntityMatch, SearchOptions } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import type { Source, SourceHealth, SourceKind, SourceQuery } from '../source.js';
import { catalogEntry, type ListCatalogEntry } from './list-catalog.js';
import type { ListService } from './list-service.js';
import { ListUnavailableError } from './loaded-lists.js';

/** Lists answer in-process in milliseconds; this bound only guards against a pathological query. */
export const LIST_SOURCE_TIMEOUT_MS = 2_000;

/** A list version's search index, wherever it runs (the service's is in the matching thread). */
export interface SearchableIndex {
  search(query: string, options: SearchOptions): Promise<ReadonlyMap<string, EntityMatch[]>>;
}

/**
 * One loaded list as a screening source. It searches the version in memory when called; a list
 * that is enabled but not loaded fails (a failed source, never "no match"). Its kind and the way
 * its entries become flags come from its catalog entry: an official list gives sanctions flags,
 * OpenSanctions' export gives PEP and watchlist flags.
 */
export class ListSource implements Source {
  readonly kind: SourceKind;
  readonly timeoutMs = LIST_SOURCE_TIMEOUT_MS;
  private readonly entry: ListCatalogEntry;

  constructor(
    readonly id: string,
    private readonly lists: ListService<SearchableIndex>,
  ) {
    const entry = catalogEntry(id);
    if (!entry) throw new Error(`${id} is not a list of the catalog.`);
    this.entry = entry;
    this.kind = entry.kind;
  }

  async screen(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    const view = this.lists.view();
    const list = view.lists.get(this.id);
    if (!list?.index) throw new ListUnavailableError(this.id);
    signal.throwIfAborted();
    const results = await list.index.search(query.entity, {
      type: query.type,
      threshold: query.threshold,
      limitPerSource: query.limit,
    });
    signal.throwIfAborted();
    const flags: Flag[] = [];
    const context = { enabledLists: this.lists.enabledLists() };
    for (const match of results.get(this.id) ?? []) {
      const entity = view.entity(match.key);
      if (entity) flags.push(this.entry.toFlag(entity, match, context));
    }
    return flags;
  }

  health(): SourceHealth {
    return this.lists.health()[this.id] ?? 'down';
  }

  version(): string | undefined {
    return this.lists.view().lists.get(this.id)?.meta.version;
  }
}
