import type { FastifyBaseLogger } from 'fastify';

/**
 * A purge of old rows run now and then on an interval (daily), in bounded batches. Instances may
 * run it at the same time: a batch deletes what is still there, so a second purge only finds less.
 * A run never overlaps itself, and a failure is logged, not thrown: the next run tries again.
 */
export abstract class DailyPurge {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly intervalMs: number,
    protected readonly logger: FastifyBaseLogger,
    /** What the log says was deleted, e.g. "screenings past retention". */
    private readonly what: string,
  ) {}

  /** Deletes what is due; resolves with the number of rows deleted. */
  protected abstract purge(): Promise<number>;

  start(): void {
    this.timer = setInterval(() => void this.run(), this.intervalMs).unref();
    void this.run();
  }

  /** One purge now; resolves with the number deleted (0 after a failure, logged). */
  run(): Promise<number> {
    this.running ??= this.purge()
      .then((deleted) => {
        if (deleted > 0) this.logger.info({ deleted }, `purged ${this.what}`);
        return deleted;
      })
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, `purge of ${this.what} failed; it runs again at the next interval`);
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
