import type { NameIndex } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import type { Source, SourceHealth, SourceQuery } from '../source.js';
import { listFlag } from './list-flag.js';
import type { ListService } from './list-service.js';
import { ListUnavailableError } from './loaded-lists.js';

/** Lists answer in-process in milliseconds; this bound only guards against a pathological query. */
export const LIST_SOURCE_TIMEOUT_MS = 2_000;

/**
 * One official list as a screening source. It searches the version in memory when called; a list
 * that is enabled but not loaded fails (a failed source, never "no match").
 */
export class ListSource implements Source {
  readonly kind = 'direct_feed' as const;
  readonly timeoutMs = LIST_SOURCE_TIMEOUT_MS;

  constructor(
    readonly id: string,
    private readonly lists: ListService<NameIndex>,
  ) {}

  async screen(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    const view = this.lists.view();
    const list = view.lists.get(this.id);
    if (!list?.index) throw new ListUnavailableError(this.id);
    signal.throwIfAborted();
    const results = list.index.search(query.entity, {
      type: query.type,
      threshold: query.threshold,
      limitPerSource: query.limit,
    });
    const flags: Flag[] = [];
    for (const match of results.get(this.id) ?? []) {
      const entity = view.entity(match.key);
      if (entity) flags.push(listFlag(entity, match));
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
