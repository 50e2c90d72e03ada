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

  private async write(batch: [string, Date][]): Promise<void> {
    for (const [keyId, usedAt] of batch) {
      try {
        await this.db
          .updateTable('api_keys')
          .set({ last_used_at: usedAt })
          .where('id', '=', keyId)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', usedAt)]))
          .execute();
      } catch (error) {
        // A lost last-used time is not worth failing anything for; the next use writes it again.
        this.lastWritten.delete(keyId);
        this.onError(error);
      }
    }
  }
}
