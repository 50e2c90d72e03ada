import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import { DailyPurge } from '../store/daily-purge.js';
import type { Db } from '../store/database.js';
import { purgeDeliveryHistory } from './delivery-queue.js';
import {
  DELIVERY_HISTORY_PURGE_BATCH_ROWS,
  DELIVERY_HISTORY_PURGE_INTERVAL_MS,
  DELIVERY_HISTORY_RETENTION_DAYS,
} from './webhook-policy.js';

/**
 * Deletes delivery history (events, their payloads, deliveries, attempts) 30 days after the event,
 * once a day. Payloads hold screening results, so they are not kept longer than the log needs.
 */
export class DeliveryHistoryPurge extends DailyPurge {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    logger: FastifyBaseLogger,
  ) {
    super(DELIVERY_HISTORY_PURGE_INTERVAL_MS, logger, 'webhook delivery history');
  }

  protected purge(): Promise<number> {
    const cutoff = new Date(
      this.clock.now().getTime() - DELIVERY_HISTORY_RETENTION_DAYS * 24 * 60 * 60 * 1000,
    );
    return purgeDeliveryHistory(this.db, cutoff, DELIVERY_HISTORY_PURGE_BATCH_ROWS);
  }
}
