import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import { DailyPurge } from '../store/daily-purge.js';
import type { Db } from '../store/database.js';
import { RETENTION_PURGE_BATCH_ROWS, RETENTION_PURGE_INTERVAL_MS } from './screening-policy.js';
import { purgeScreenings, retentionCutoff } from './screening-store.js';

/** Deletes screenings past the retention period once a day, in bounded batches. */
export class RetentionPurge extends DailyPurge {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly retentionMonths: number,
    logger: FastifyBaseLogger,
  ) {
    super(RETENTION_PURGE_INTERVAL_MS, logger, 'screenings past retention');
  }

  protected purge(): Promise<number> {
    return purgeScreenings(
      this.db,
      retentionCutoff(this.clock.now(), this.retentionMonths),
      RETENTION_PURGE_BATCH_ROWS,
    );
  }
}
