import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { type FetchedList, fetchList, type ListFetchResult } from './list-fetcher.js';
import type { ListHeadStart } from './list-head-start.js';
import { type LocationSettings, locateList } from './list-location.js';
import type { ListRegistryEntry } from './list-registry.js';
import { parsersOf } from './list-registry.js';
import type { LoadedLists } from './loaded-lists.js';
import type { ParseThread } from './parse-thread.js';
import type { ParsedVersion } from './parsed-version.js';
import { publicationDate } from './publication-date.js';
import type {
  ListParseSettings,
  ListSnapshotMeta,
  ListSnapshotStore,
  RefreshOutcome,
} from './snapshot-store.js';

/**
 * A new version with more than this share fewer entities than the one in service is rejected
 * unless an operator forces it: official lists shrink by delistings of a few entries, so a big
 * drop means a truncated or partial file, and serving it would silently clear real matches.
 */
export const LIST_MAX_SHRINK_RATIO = 0.2;

export interface RefreshResult {
  listId: string;
  outcome: RefreshOutcome;
  /** One sentence for the operator (also the stored error of a failed or rejected refresh). */
  detail: string;
}

export interface RefresherSettings {
  location(entry: ListRegistryEntry): LocationSettings;
  parseSettings(listId: string): ListParseSettings;
  downloadTimeoutMs: number;
  maxDownloadBytes: number;
}

export interface RefresherDeps<TIndex> {
  store: ListSnapshotStore;
  loaded: LoadedLists<TIndex>;
  /** Where the files are parsed; its owner stops it when a round of refreshes is over. */
  parses: ParseThread;
  clock: Clock;
  logger: FastifyBaseLogger;
  settings: RefresherSettings;
  /** Lists fetched and parsed while the service started on a new database (their first refresh). */
  headStart?: ListHeadStart | undefined;
}

/**
 * Refreshes one list: fetch (conditional), parse completely, check the shrink guard, store the
 * version, then swap it into memory. Any failure leaves the version in service untouched and is
 * recorded as the list's last error.
 */
export class ListRefresher<TIndex> {
  constructor(private readonly deps: RefresherDeps<TIndex>) {}

  async refresh(
    entry: ListRegistryEntry,
    options: { force: boolean; signal?: AbortSignal },
  ): Promise<RefreshResult> {
    let result: RefreshResult;
    try {
      result = await this.attempt(entry, options.force, options.signal);
    } catch (error) {
      result = { listId: entry.id, outcome: 'failed', detail: describe(error) };
    }
    if (result.outcome !== 'accepted') {
      await this.deps.store.recordAttempt(entry.id, {
        outcome: result.outcome,
        error: result.outcome === 'unchanged' ? undefined : result.detail,
      });
    }
    const level = result.outcome === 'failed' || result.outcome === 'rejected' ? 'warn' : 'info';
    this.deps.logger[level]({ list: entry.id, outcome: result.outcome }, `list refresh: ${result.detail}`);
    return result;
  }

  private async attempt(
    entry: ListRegistryEntry,
    force: boolean,
    signal?: AbortSignal,
  ): Promise<RefreshResult> {
    const { settings } = this.deps;
    const current = this.deps.loaded.get(entry.id)?.meta;
    const early = current === undefined ? await this.deps.headStart?.take(entry.id) : undefined;
    if (early && 'failure' in early) throw early.failure;
    const fetched = early?.fetched ?? (await fetchListVersion(entry, settings, { current, force, signal }));
    const parseSettings = settings.parseSettings(entry.id);
    const sameSettings = current !== undefined && sameParseSettings(current.parseSettings, parseSettings);
    if (
      fetched.status === 'not_modified' ||
      (sameSettings && current?.version === fetched.version && !force)
    ) {
      return {
        listId: entry.id,
        outcome: 'unchanged',
        detail: `version ${short(current?.version)} is current`,
      };
    }
    const parsed =
      early?.parsed ??
      (await this.deps.parses.parse(fetched.parser, fetched.contents, parseSettings, signal));
    const shrink = sameSettings && !force ? shrinkage(current, parsed.entityCount) : undefined;
    if (shrink !== undefined) {
      return {
        listId: entry.id,
        outcome: 'rejected',
        detail:
          `version ${short(fetched.version)} has ${parsed.entityCount} entries, ${Math.round(shrink * 100)}% ` +
          `fewer than the ${current?.entityCount} in service; kept the current version (refresh with force to accept it)`,
      };
    }
    const meta = await this.store(entry.id, fetched, parsed, parseSettings, force);
    this.deps.loaded.install(entry.id, await this.deps.loaded.prepare(meta, parsed.chunks));
    return {
      listId: entry.id,
      outcome: 'accepted',
      detail: `version ${short(meta.version)} with ${meta.entityCount} entries is in service${force ? ' (forced)' : ''}`,
    };
  }

  private store(
    listId: string,
    fetched: FetchedList,
    parsed: ParsedVersion,
    parseSettings: ListParseSettings,
    forced: boolean,
  ): Promise<ListSnapshotMeta> {
    return this.deps.store.saveAccepted({
      listId,
      version: fetched.version,
      format: fetched.parser.format,
      listDate: publicationDate(parsed.listDate, fetched.files),
      fetchedAt: this.deps.clock.now(),
      entityCount: parsed.entityCount,
      nameCount: parsed.counts.names,
      files: fetched.files,
      parseSettings,
      forced,
      counts: parsed.counts,
      warnings: parsed.warnings,
      chunks: parsed.chunks,
    });
  }
}

/**
 * A list's files from where its settings say, conditionally on the version in service (`current`)
 * unless `force`: without a version it is always fetched.
 */
export async function fetchListVersion(
  entry: ListRegistryEntry,
  settings: RefresherSettings,
  options: { current?: ListSnapshotMeta | undefined; force?: boolean; signal?: AbortSignal | undefined },
): Promise<ListFetchResult> {
  const { current, force, signal } = options;
  const location = await locateList(entry, parsersOf(entry.id), settings.location(entry));
  const sameFormat = current?.format === location.parser.format;
  return fetchList(location, {
    timeoutMs: settings.downloadTimeoutMs,
    maxBytes: settings.maxDownloadBytes,
    ...(signal ? { signal } : {}),
    ...(current && sameFormat && !force ? { previous: current.files } : {}),
  });
}

/** The share by which `count` falls short of the version in service, when over the limit. */
export function shrinkage(current: ListSnapshotMeta | undefined, count: number): number | undefined {
  if (!current || current.entityCount === 0) return undefined;
  const shrink = (current.entityCount - count) / current.entityCount;
  return shrink > LIST_MAX_SHRINK_RATIO ? shrink : undefined;
}

export function sameParseSettings(a: ListParseSettings, b: ListParseSettings): boolean {
  const skipA = [...(a.skipLists ?? [])].sort().join(',');
  const skipB = [...(b.skipLists ?? [])].sort().join(',');
  return skipA === skipB;
}

function short(version: string | undefined): string {
  return version ? version.slice(0, 12) : '(none)';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
