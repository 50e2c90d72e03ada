import type { RawBuilder } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import {
  assertRoomFor,
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
 * With several instances (PostgreSQL) a count read here may miss the others' screenings for this
 * long. Only reads are affected: admission is always the database's conditional increment.
 */
export const SHARED_USAGE_READ_TTL_MS = 1_000;

/**
 * The monthly counts: the database is the truth and every increment goes there, atomically. Reads
 * are kept in memory and follow this process's own increments: on the embedded database this
 * process is the only writer (the data folder is locked), so they stay exact; with PostgreSQL,
 * where other instances count too, a read is reused for at most one second.
 */
interface AccountMonth {
  account: number;
  keys: Map<string, number>;
  /** The slot's change count when these counts were read: increments that started later are not in them. */
  version: number;
}

/** Where a subject's key count is kept; console screenings (no key) share one slot, always 0. */
function keySlot(subject: UsageSubject): string {
  return subject.keyId ?? '';
}

export class UsageLedger {
  /** Per account and month: its count and the counts of those of its keys read so far. */
  private readonly cached: LRUCache<string, AccountMonth>;
  /** Changes whenever a count starts or ends, so a read racing with a count is not cached. */
  private readonly changes = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    soleWriter: boolean,
  ) {
    this.cached = new LRUCache({
      max: CACHED_COUNTERS_MAX,
      ...(soleWriter ? {} : { ttl: SHARED_USAGE_READ_TTL_MS }),
    });
  }

  async assertAvailable(subject: UsageSubject): Promise<void> {
    const now = this.clock.now();
    assertUnderLimit(subject, (await this.counts(subject, monthOf(now))).account, now);
  }

  /** Refuses `requested` screenings at once when fewer remain this month (see `assertRoomFor`). */
  async assertRoomFor(subject: UsageSubject, requested: number, consequence: string): Promise<void> {
    const now = this.clock.now();
    assertRoomFor(subject, (await this.counts(subject, monthOf(now))).account, requested, now, consequence);
  }

  /**
   * Counts `amount` screenings (and runs `alongside` with them, see `countScreening`); throws when
   * the month has no room for them. `within`: a transaction of the caller's, which may still roll
   * the count back, so the counts kept in memory are dropped rather than followed.
   */
  async count(
    subject: UsageSubject,
    alongside?: Readonly<Record<string, RawBuilder<unknown>>>,
    amount = 1,
    within?: Db,
  ): Promise<void> {
    const slot = `${subject.accountId}:${monthOf(this.clock.now())}`;
    const started = this.changed(slot);
    try {
      await countScreening(within ?? this.db, this.clock, subject, alongside, amount);
      if (within) {
        this.cached.delete(slot);
        return;
      }
      // Counts read before this increment started grew by exactly these screenings: keep them rather
      // than read them again (a read made meanwhile may already hold it: dropped). On PostgreSQL
      // they still expire with their read, since other instances count too.
      const entry = this.cached.get(slot);
      if (entry && entry.version >= started) this.cached.delete(slot);
      else if (entry) {
        entry.account += amount;
        const key = entry.keys.get(keySlot(subject));
        if (key !== undefined) entry.keys.set(keySlot(subject), key + amount);
      }
    } catch (error) {
      this.cached.delete(slot);
      throw error;
    } finally {
      this.changed(slot);
    }
  }

  async usage(subject: UsageSubject): Promise<Usage> {
    const now = this.clock.now();
    return describeUsage(subject, now, await this.counts(subject, monthOf(now)));
  }

  /** Marks a count starting or ending on the slot; returns the slot's new change count. */
  private changed(slot: string): number {
    const next = (this.changes.get(slot) ?? 0) + 1;
    this.changes.set(slot, next);
    return next;
  }

  private async counts(subject: UsageSubject, month: string): Promise<{ account: number; key: number }> {
    const slot = `${subject.accountId}:${month}`;
    const entry = this.cached.get(slot);
    const key = entry?.keys.get(keySlot(subject));
    if (entry && key !== undefined) return { account: entry.account, key };
    const before = this.changes.get(slot) ?? 0;
    const counts = await readCounts(this.db, subject, month);
    if ((this.changes.get(slot) ?? 0) === before) {
      const fresh = entry ?? { account: counts.account, keys: new Map<string, number>(), version: before };
      fresh.account = counts.account;
      fresh.version = before;
      fresh.keys.set(keySlot(subject), counts.key);
      this.cached.set(slot, fresh);
    }
    return counts;
  }
}
