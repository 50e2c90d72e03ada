import type { RawBuilder } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import {
  assertUnderLimit,
  countScreening,
  describeUsage,
  monthOf,
  readCounts,
  type Usage,
  type UsageSubject,
} from './usage.js';

const CACHED_COUNTERS_MAX = 100_000;

/**
 * The monthly counts: the database is the truth and every increment goes there, atomically. On the
 * embedded database this process is the only writer (the data folder is locked), so it also keeps
 * the counts it has read and changed in memory and answers reads without a query; with PostgreSQL,
 * where other instances count too, every read goes to the database.
 */
interface AccountMonth {
  account: number;
  keys: Map<string, number>;
}

export class UsageLedger {
  /** Per account and month: its count and the counts of those of its keys read so far. */
  private readonly cached: LRUCache<string, AccountMonth> | undefined;
  /** Changes whenever a count starts or ends, so a read racing with a count is not cached. */
  private readonly changes = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    soleWriter: boolean,
  ) {
    this.cached = soleWriter ? new LRUCache({ max: CACHED_COUNTERS_MAX }) : undefined;
  }

  async assertAvailable(subject: UsageSubject): Promise<void> {
    const now = this.clock.now();
    assertUnderLimit(subject, (await this.counts(subject, monthOf(now))).account, now);
  }

  /** Counts one screening (and runs `alongside` with it, see `countScreening`); throws when the month is full. */
  async count(subject: UsageSubject, alongside?: RawBuilder<unknown>): Promise<void> {
    const slot = `${subject.accountId}:${monthOf(this.clock.now())}`;
    this.changed(slot);
    try {
      await countScreening(this.db, this.clock, subject, alongside);
    } finally {
      this.changed(slot);
      this.cached?.delete(slot);
    }
  }

  async usage(subject: UsageSubject): Promise<Usage> {
    const now = this.clock.now();
    return describeUsage(subject, now, await this.counts(subject, monthOf(now)));
  }

  private changed(slot: string): void {
    if (this.cached) this.changes.set(slot, (this.changes.get(slot) ?? 0) + 1);
  }

  private async counts(subject: UsageSubject, month: string): Promise<{ account: number; key: number }> {
    const slot = `${subject.accountId}:${month}`;
    const entry = this.cached?.get(slot);
    const key = entry?.keys.get(subject.keyId);
    if (entry && key !== undefined) return { account: entry.account, key };
    const before = this.changes.get(slot);
    const counts = await readCounts(this.db, subject, month);
    if (this.cached && this.changes.get(slot) === before) {
      const fresh = entry ?? { account: counts.account, keys: new Map<string, number>() };
      fresh.account = counts.account;
      fresh.keys.set(subject.keyId, counts.key);
      this.cached.set(slot, fresh);
    }
    return counts;
  }
}
