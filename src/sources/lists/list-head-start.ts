import type { FetchedList } from './list-fetcher.js';
import { fetchListVersion, type RefresherSettings } from './list-refresher.js';
import { enabledListEntries, type ListRegistryEntry } from './list-registry.js';
import { ParseThread } from './parse-thread.js';
import type { ParsedVersion } from './parsed-version.js';
import { type ListSourceSettings, refresherSettings } from './refresh-settings.js';

/** A list fetched and parsed ahead of its first refresh, with the refresher's own settings. */
export interface HeadStarted {
  fetched: FetchedList;
  parsed: ParsedVersion;
}

/** How the head start ended for a list: its version, or what failed (reported by the refresh). */
export type HeadStartResult = HeadStarted | { failure: unknown };

interface Ahead {
  result: Promise<HeadStartResult | undefined>;
  /** The list before it has been taken (or it is the first): it is fetched, or about to be. */
  turnCame: boolean;
  /** Taken before its turn came: never fetched. */
  skipped: boolean;
  settled: boolean;
  /** Lets its turn come: the gate its fetch waits behind opens. */
  open: () => void;
  /** The list after it, whose turn comes once this one is taken. */
  next?: Ahead;
}

/**
 * A database that does not exist yet holds no list version: the first refresh will fetch and
 * parse every enabled list whatever happens. A head start does that from the moment the process
 * starts, in a parse thread of its own, while the main thread creates the database and the
 * services; each list's first refresh then takes the result instead of fetching and parsing again.
 * It keeps one list ahead of the refreshes: the next list is fetched once the previous one has been
 * taken, in the registry's order as the first refreshes go; a list asked for before its turn (an
 * operator's refresh) is given nothing at once, and skipped. A failure the refresh was waiting for
 * is its own (a source that does not answer is not waited for twice); one that came before the
 * refresh asked, perhaps before the network was up, is dropped and the refresh fetches again.
 */
export class ListHeadStart {
  private readonly parses = new ParseThread();
  private readonly ahead = new Map<string, Ahead>();
  private readonly stopping = new AbortController();
  private readonly finished: Promise<void>;

  constructor(options: ListSourceSettings) {
    const settings = refresherSettings(options);
    let previous: Ahead | undefined;
    for (const entry of enabledListEntries(options.enabled)) {
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const ahead: Ahead = {
        result: gate
          .then(() => (ahead.skipped ? undefined : this.fetchAndParse(entry, settings)))
          .catch((failure: unknown) => ({ failure }))
          .finally(() => {
            ahead.settled = true;
          }),
        turnCame: false,
        skipped: false,
        settled: false,
        open: () => {
          ahead.turnCame = true;
          open();
        },
      };
      if (previous) previous.next = ahead;
      else ahead.open();
      this.ahead.set(entry.id, ahead);
      previous = ahead;
    }
    this.finished = Promise.all([...this.ahead.values()].map((ahead) => ahead.result)).then(() =>
      this.parses.stop(),
    );
  }

  /**
   * What was fetched and parsed of a list, or the failure the caller waits for, once. Nothing for
   * later calls, for a list whose turn has not come, and for a failure that came before this call.
   */
  take(listId: string): Promise<HeadStartResult | undefined> {
    const ahead = this.ahead.get(listId);
    if (!ahead) return Promise.resolve(undefined);
    this.ahead.delete(listId);
    // Asked before its turn, it is skipped: its gate opens on nothing, and the next list's turn comes.
    ahead.skipped = !ahead.turnCame;
    ahead.open();
    ahead.next?.open();
    if (ahead.skipped) return Promise.resolve(undefined);
    const failedBefore = ahead.settled;
    return ahead.result.then((result) =>
      result && 'failure' in result && failedBefore ? undefined : result,
    );
  }

  /** Stops what is still being fetched or parsed (the service is closing, or did not start). */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const ahead of this.ahead.values()) ahead.open();
    await this.finished;
  }

  private async fetchAndParse(entry: ListRegistryEntry, settings: RefresherSettings): Promise<HeadStarted> {
    const signal = this.stopping.signal;
    signal.throwIfAborted();
    const fetched = await fetchListVersion(entry, settings, { signal });
    // Asked without validators, a source has nothing to answer "not modified" to.
    if (fetched.status !== 'fetched') throw new Error(`${entry.id}: "not modified" to a first fetch`);
    const parsed = await this.parses.parse(
      fetched.parser,
      fetched.contents,
      settings.parseSettings(entry.id),
      signal,
    );
    return { fetched, parsed };
  }
}
