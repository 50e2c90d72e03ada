import type { FetchedList } from './list-fetcher.js';
import { fetchList } from './list-fetcher.js';
import { locateList } from './list-location.js';
import type { RefresherSettings } from './list-refresher.js';
import { enabledListEntries, type ListRegistryEntry, parsersOf } from './list-registry.js';
import { ParseThread } from './parse-thread.js';
import type { ParsedVersion } from './parsed-version.js';
import type { ListSourceSettings } from './refresh-settings.js';
import { refresherSettings } from './refresh-settings.js';
import type { ListParseSettings } from './snapshot-store.js';

/** A list fetched and parsed ahead of its first refresh. */
export interface HeadStarted {
  fetched: FetchedList;
  parsed: ParsedVersion;
  parseSettings: ListParseSettings;
}

/** How the head start ended for a list: its version, or what failed (reported by the refresh). */
export type HeadStartResult = HeadStarted | { failure: unknown };

/**
 * A database that does not exist yet holds no list version: the first refresh will fetch and
 * parse every enabled list whatever happens. A head start does that from the moment the process
 * starts, in a parse thread of its own, while the main thread creates the database and the
 * services; each list's first refresh then takes the result instead of fetching and parsing again,
 * or the failure, which it reports as its own (an unreachable source is not waited for twice).
 */
export class ListHeadStart {
  private readonly parses = new ParseThread();
  private readonly results = new Map<string, Promise<HeadStartResult>>();
  private readonly stopping = new AbortController();
  private readonly finished: Promise<void>;

  constructor(options: ListSourceSettings) {
    const settings = refresherSettings(options);
    let previous: Promise<unknown> = Promise.resolve();
    // One list after another, in the order the first refresh asks for them.
    for (const entry of enabledListEntries(options.enabled)) {
      const result = previous
        .then(() => this.fetchAndParse(entry, settings))
        .catch((failure: unknown) => ({ failure }));
      this.results.set(entry.id, result);
      previous = result;
    }
    this.finished = previous.then(() => this.parses.stop());
  }

  /** What was fetched and parsed of a list, or what failed, once: later calls get nothing. */
  take(listId: string): Promise<HeadStartResult | undefined> {
    const result = this.results.get(listId);
    this.results.delete(listId);
    return result ?? Promise.resolve(undefined);
  }

  /** Stops what is still being fetched or parsed (the service is closing). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.finished;
  }

  private async fetchAndParse(entry: ListRegistryEntry, settings: RefresherSettings): Promise<HeadStarted> {
    const signal = this.stopping.signal;
    signal.throwIfAborted();
    const location = await locateList(entry, parsersOf(entry.id), settings.location(entry));
    const fetched = await fetchList(location, {
      timeoutMs: settings.downloadTimeoutMs,
      maxBytes: settings.maxDownloadBytes,
      signal,
    });
    // Asked without validators, a source has nothing to answer "not modified" to.
    if (fetched.status !== 'fetched')
      throw new Error(`${entry.id}: the source answered "not modified" to a first fetch`);
    const parseSettings = settings.parseSettings(entry.id);
    const parsed = await this.parses.parse(fetched.parser, fetched.contents, parseSettings, signal);
    return { fetched, parsed, parseSettings };
  }
}
