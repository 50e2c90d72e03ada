import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { RETENTION_PURGE_BATCH_ROWS, RETENTION_PURGE_INTERVAL_MS } from './screening-policy.js';
import { purgeScreenings, retentionCutoff } from './screening-store.js';

/**
 * Deletes screenings past the retention period once a day, in bounded batches. Instances may run
 * it at the same time: a batch deletes what is still there, so a second purge only finds less.
 */
export class RetentionPurge {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly retentionMonths: number,
    private readonly logger: FastifyBaseLogger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), RETENTION_PURGE_INTERVAL_MS).unref();
    void this.run();
  }

  /** One purge now; resolves with the number of screenings deleted (0 after a failure, logged). */
  run(): Promise<number> {
    this.running ??= purgeScreenings(
      this.db,
      retentionCutoff(this.clock.now(), this.retentionMonths),
      RETENTION_PURGE_BATCH_ROWS,
    )
      .then((deleted) => {
        if (deleted > 0) this.logger.info({ deleted }, 'purged screenings past retention');
        return deleted;
      })
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, 'retention purge failed; it runs again tomorrow');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
