import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';

/** `last_used_at` is precise to this interval: at most one write per key per interval and instance. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const FLUSH_DELAY_MS = 1_000;

/**
 * Records when keys were used without a database write per request: uses are coalesced in
 * memory and written in one statement shortly after, at most once a minute per key.
 */
export class LastUsedRecorder {
  private readonly lastWritten = new Map<string, number>();
  private readonly pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
  ) {}

  touch(keyId: string, previouslyUsedAt: Date | null): void {
    const now = this.clock.now();
    const last = this.lastWritten.get(keyId) ?? previouslyUsedAt?.getTime() ?? 0;
    if (now.getTime() - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(keyId, now.getTime());
    this.pending.set(keyId, now);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
  }

  /** Writes what is pending; called on the timer and at shutdown. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending];
    this.pending.clear();
    this.flushing = this.flushing.then(() => this.write(batch));
    await this.flushing;
  }

  // One statement for the whole batch: at shutdown with the database slow, pending keys must not
  // each wait their own turn.
  private async write(batch: [string, Date][]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await sql`
        UPDATE api_keys SET last_used_at = used.at
        FROM unnest(${batch.map(([id]) => id)}::uuid[], ${batch.map(([, at]) => at)}::timestamptz[]) AS used(id, at)
        WHERE api_keys.id = used.id AND (api_keys.last_used_at IS NULL OR api_keys.last_used_at < used.at)`.execute(
        this.db,
      );
    } catch (error) {
      // A lost last-used time is not worth failing anything for; the next use writes it again.
      for (const [keyId] of batch) this.lastWritten.delete(keyId);
      this.onError(error);
    }
  }
}
