import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { collectGarbage } from '../../collect-garbage.js';
import { ServiceError } from '../../errors.js';
import type { Db } from '../../store/database.js';
import type { ListStateRow } from '../../store/schema.js';
import { OPENSANCTIONS_SOURCE } from '../opensanctions-datasets.js';
import type { StaleSource } from '../stale-source.js';
import type { ListHeadStart } from './list-head-start.js';
import { ListRefresher, type RefreshResult } from './list-refresher.js';
import { enabledListEntries, type ListRegistryEntry, registeredList } from './list-registry.js';
import {
  describeList,
  type ListPublication,
  type ListStatus,
  listAgeDays,
  listState,
  publishedTooLongAgo,
  refreshDue,
  type SourceHealth,
  sourceHealth,
} from './list-status.js';
import { type ListIndexer, type ListsView, LoadedLists } from './loaded-lists.js';
import { ParseThread } from './parse-thread.js';
import { type DatabaseKind, RefreshLock } from './refresh-lock.js';
import { type ListSourceSettings, refresherSettings } from './refresh-settings.js';
import { ListSnapshotStore } from './snapshot-store.js';

/**
 * How often an instance looks for versions another instance stored, and whether a scheduled
 * refresh is due. Reading one small table. A new version reaches every instance within two of
 * these (one for the refresher to notice it is due, one for the others to see what it stored)
 * plus the refresh and the index build: 2 s keeps that well inside the promised 10 s.
 */
export const LIST_SYNC_INTERVAL_MS = 2_000;

export interface ListServiceOptions<TIndex> extends ListSourceSettings {
  db: Db;
  databaseKind: DatabaseKind;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** 0: no scheduled refresh (operators refresh by hand). */
  refreshIntervalMinutes: number;
  /** Per list id, the days after its publication past which it is stale (absent: the registry's). */
  maxAgeDays?: Readonly<Record<string, number>>;
  indexer?: ListIndexer<TIndex>;
  /** Lists fetched and parsed while the database was being created (see ListHeadStart). */
  headStart?: ListHeadStart | undefined;
}

export interface RefreshReport extends RefreshResult {
  list: ListStatus;
}

/**
 * The official lists as a service: loads the stored versions at start, refreshes on a schedule
 * (one instance at a time), picks up versions other instances stored, and reports per list.
 * The HTTP layer and the CLI go through this facade only.
 */
/** A list's version in service and when it was last found current (its staleness is judged from that). */
export interface ListFreshness {
  id: string;
  version: string | null;
  confirmedAt: Date | null;
}

export class ListService<TIndex = never> {
  readonly loaded: LoadedLists<TIndex>;
  private readonly store: ListSnapshotStore;
  private readonly lock: RefreshLock;
  private readonly refresher: ListRefresher<TIndex>;
  private readonly parses = new ParseThread();
  private readonly entries: ListRegistryEntry[];
  private states = new Map<string, ListStateRow>();
  private timer: NodeJS.Timeout | undefined;
  private background: Promise<void> = Promise.resolve();
  private storedLoad: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();
  private readonly refreshingLists = new Set<string>();
  /** The lists in service at the last collection (each install makes a new view). */
  private collectedAfter: ListsView<TIndex>;

  constructor(private readonly options: ListServiceOptions<TIndex>) {
    this.loaded = new LoadedLists(options.indexer);
    this.collectedAfter = this.loaded.current();
    this.store = new ListSnapshotStore(options.db, options.clock);
    this.lock = new RefreshLock(options.db, options.databaseKind);
    this.entries = enabledListEntries(options.enabled);
    this.refresher = new ListRefresher({
      store: this.store,
      loaded: this.loaded,
      parses: this.parses,
      clock: options.clock,
      logger: options.logger,
      settings: refresherSettings(options),
      headStart: options.headStart,
    });
  }

  /** The lists in service right now; a screening takes it once and keeps it to the end. */
  view(): ListsView<TIndex> {
    return this.loaded.current();
  }

  enabledLists(): readonly string[] {
    return this.entries.map((entry) => entry.id);
  }

  /**
   * Starts the lists' work in the background and returns at once: the stored versions are loaded
   * (no download, no parse), then what is due is refreshed. The service answers meanwhile, its
   * health at once and screenings with the lists loaded so far, naming the others in
   * `sources_failed`; it starts even when the database's versions cannot be read or no source is
   * reachable.
   */
  start(): void {
    if (this.entries.length === 0) return;
    const stored = this.loadStored();
    this.storedLoad = stored.then(() => undefined);
    this.background = stored.then(async (loaded) => {
      // Nothing is refreshed on states not read: the next tick tries both again.
      if (!loaded) return;
      // With scheduled refreshes off (interval 0) a list never loaded is still loaded once.
      await this.refreshDueLists();
      this.reportNotLoaded();
    });
    this.timer = setInterval(() => this.tick(), LIST_SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Resolves once the versions stored when the service started are in service (or could not be
   * read): the background work that screens (batches, monitors) waits for it, so that it does not
   * store screenings that missed a list only because it was still loading.
   */
  storedVersionsLoaded(): Promise<void> {
    return this.storedLoad;
  }

  private async loadStored(): Promise<boolean> {
    try {
      await this.sync();
      return true;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'loading the stored list versions failed; will retry');
      return false;
    }
  }

  /** Resolves when the background refresh started last has finished (tests, benchmarks). */
  async settled(): Promise<void> {
    await this.background;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.options.headStart?.stop();
    await this.background;
    await this.parses.stop();
  }

  async status(): Promise<ListStatus[]> {
    this.states = await this.store.states();
    return this.entries.map((entry) => this.describe(entry));
  }

  /** Per enabled list: `up` (loaded and fresh), `slow` (stale or last refresh failed), `down`. */
  health(): Record<string, SourceHealth> {
    const now = this.options.clock.now();
    const health: Record<string, SourceHealth> = {};
    for (const entry of this.entries) health[entry.id] = sourceHealth(this.stateOf(entry, now));
    return health;
  }

  /**
   * The list in service, when it is stale: published longer ago than its maximum age, or not
   * confirmed current for too long. Screenings still search it and say so (`sources_stale`).
   */
  staleness(listId: string): StaleSource | undefined {
    const entry = this.entries.find((e) => e.id === listId);
    const meta = this.loaded.get(listId)?.meta;
    if (!entry || !meta) return undefined;
    const now = this.options.clock.now();
    const old = publishedTooLongAgo(meta.listDate, now, this.maxAgeOf(entry));
    if (!old && this.stateOf(entry, now) !== 'stale') return undefined;
    return {
      source: listId,
      list_date: meta.listDate ?? null,
      list_age_days: listAgeDays(meta.listDate, now) ?? null,
    };
  }

  /** Per enabled list, from memory (no query): its state, publication date and age, for health. */
  publications(): Record<string, ListPublication> {
    const now = this.options.clock.now();
    const publications: Record<string, ListPublication> = {};
    for (const entry of this.entries) {
      const listDate = this.loaded.get(entry.id)?.meta.listDate;
      publications[entry.id] = {
        state: this.stateOf(entry, now),
        list_date: listDate ?? null,
        list_age_days: listAgeDays(listDate, now) ?? null,
        max_age_days: this.maxAgeOf(entry),
      };
    }
    return publications;
  }

  /** Per enabled list, from memory (no query): for the metrics. */
  freshness(): ListFreshness[] {
    return this.entries.map((entry) => {
      const meta = this.loaded.get(entry.id)?.meta;
      const checkedAt = this.states.get(entry.id)?.checked_at;
      const confirmedAt = meta ? (checkedAt ? new Date(checkedAt) : meta.fetchedAt) : null;
      return { id: entry.id, version: meta?.version ?? null, confirmedAt };
    });
  }

  get refreshIntervalMinutes(): number {
    return this.options.refreshIntervalMinutes;
  }

  /** An operator's refresh of one list or of every enabled list; `force` accepts a shrunken list. */
  async refresh(listId: string | undefined, options: { force?: boolean } = {}): Promise<RefreshReport[]> {
    const entries = listId === undefined ? this.entries : [this.enabledEntry(listId)];
    const outcome = await this.lock.run(() =>
      this.refreshRound(async () => {
        const results: RefreshResult[] = [];
        for (const entry of entries) {
          await this.sync([entry]);
          results.push(
            await this.refreshing(entry, () =>
              this.refresher.refresh(entry, {
                force: options.force ?? false,
                signal: this.stopping.signal,
              }),
            ),
          );
        }
        return results;
      }),
    );
    if (!outcome.ran) {
      throw new ServiceError(
        'conflict',
        'Another instance is refreshing the lists right now; retry in a minute.',
      );
    }
    this.states = await this.store.states();
    return outcome.value.map((result) => ({
      ...result,
      list: this.describe(this.enabledEntry(result.listId)),
    }));
  }

  // The lists of one round are parsed by one worker thread, stopped at the end of the round so
  // that its memory is returned (see ParseThread).
  private async refreshRound<T>(round: () => Promise<T>): Promise<T> {
    try {
      return await round();
    } finally {
      await this.parses.stop();
      this.collectAfterInstalls();
    }
  }

  /**
   * Once versions have been put in service, the chunks they were read from and the versions they
   * replaced are garbage: collected at once rather than kept until the next screenings.
   */
  private collectAfterInstalls(): void {
    const view = this.loaded.current();
    if (view === this.collectedAfter) return;
    this.collectedAfter = view;
    collectGarbage();
  }

  // While this instance refreshes a list, the sync loop leaves it alone: the version the refresh
  // stores is its to install (a sync would build the same version's index a second time).
  private async refreshing<T>(entry: ListRegistryEntry, refresh: () => Promise<T>): Promise<T> {
    this.refreshingLists.add(entry.id);
    try {
      return await refresh();
    } finally {
      this.refreshingLists.delete(entry.id);
    }
  }

  private enabledEntry(listId: string): ListRegistryEntry {
    const enabled = this.entries.find((entry) => entry.id === listId);
    if (enabled) return enabled;
    if (registeredList(listId)) {
      // OpenSanctions' export is switched on by its mode, whatever LISTS_ENABLED says.
      const setting = listId === OPENSANCTIONS_SOURCE ? 'OPENSANCTIONS_MODE=bulk' : 'LISTS_ENABLED';
      throw new ServiceError('conflict', `The list ${listId} is not enabled (see ${setting}).`);
    }
    throw new ServiceError('not-found', `The list ${listId} was not found.`);
  }

  private describe(entry: ListRegistryEntry): ListStatus {
    const now = this.options.clock.now();
    return describeList(
      entry,
      this.loaded.get(entry.id)?.meta,
      this.states.get(entry.id),
      this.stateOf(entry, now),
      {
        now,
        maxAgeDays: this.maxAgeOf(entry),
      },
    );
  }

  private stateOf(entry: ListRegistryEntry, now: Date) {
    const meta = this.loaded.get(entry.id)?.meta;
    const { refreshIntervalMinutes } = this.options;
    return listState(meta, this.states.get(entry.id), now, refreshIntervalMinutes, this.maxAgeOf(entry));
  }

  private maxAgeOf(entry: ListRegistryEntry): number {
    return this.options.maxAgeDays?.[entry.id] ?? entry.maxAgeDays;
  }

  /** Installs the versions the database names as current and this instance does not hold yet. */
  private async sync(entries: readonly ListRegistryEntry[] = this.entries): Promise<void> {
    this.states = await this.store.states();
    const missing = entries.flatMap((entry) => {
      if (this.refreshingLists.has(entry.id)) return [];
      const snapshotId = this.states.get(entry.id)?.snapshot_id;
      return snapshotId && this.loaded.get(entry.id)?.meta.id !== snapshotId ? [{ entry, snapshotId }] : [];
    });
    // Every version is read and decompressed (on the thread pool) while the index of the one
    // before it is built; a failed read is reported when its turn comes.
    const loads = missing.map(({ snapshotId }) => {
      const load = this.store.loadSnapshot(snapshotId);
      load.catch(() => {});
      return load;
    });
    for (const [i, { entry, snapshotId }] of missing.entries()) {
      const stored = await loads[i];
      if (!stored) {
        this.options.logger.error({ list: entry.id, snapshotId }, 'stored list version has no entities');
        continue;
      }
      const before = this.loaded.get(entry.id);
      const prepared = await this.loaded.prepare(stored.meta, stored.chunks);
      // A refresh may have put this version, or a newer one, in service while the index was built.
      if (this.refreshingLists.has(entry.id) || this.loaded.get(entry.id) !== before) {
        this.loaded.discard(prepared);
        continue;
      }
      this.loaded.install(entry.id, prepared);
      this.options.logger.info(
        { list: entry.id, version: stored.meta.version },
        'list version loaded from the database',
      );
    }
    this.collectAfterInstalls();
  }

  /**
   * One line for the operator once start-up is done with the lists: those still not in service,
   * and what that means for the answers (each refresh failure has been logged on its own).
   */
  private reportNotLoaded(): void {
    const missing = this.entries.filter((entry) => !this.loaded.get(entry.id)).map((entry) => entry.id);
    if (missing.length === 0) return;
    this.options.logger.warn(
      { lists: missing },
      `Lists not loaded: ${missing.join(', ')}. Screenings will report them in sources_failed (and as not complete) until they load.`,
    );
  }

  private tick(): void {
    // A tick never overlaps the previous one's work: slow downloads simply skip ticks.
    this.background = this.background.then(async () => {
      try {
        await this.sync();
        await this.refreshDueLists();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'list sync failed; will retry');
      }
    });
  }

  private async refreshDueLists(): Promise<void> {
    const interval = this.options.refreshIntervalMinutes;
    try {
      // Another instance holding the lock is refreshing: this one loads its versions on a later tick.
      await this.lock.run(() =>
        this.refreshRound(async () => {
          for (const entry of this.entries) {
            if (this.stopping.signal.aborted) return;
            this.states = await this.store.states();
            if (!refreshDue(this.states.get(entry.id), this.options.clock.now(), interval)) continue;
            await this.sync([entry]);
            await this.refreshing(entry, () =>
              this.refresher.refresh(entry, { force: false, signal: this.stopping.signal }),
            );
          }
          this.states = await this.store.states();
        }),
      );
    } catch (error) {
      this.options.logger.warn({ err: error }, 'scheduled list refresh failed; will retry');
    }
  }
}
