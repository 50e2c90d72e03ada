import type { FastifyBaseLogger } from 'fastify';
import { inBackground } from '../../background-work.js';
import type { Clock } from '../../clock.js';
import { ClaimLoop } from '../../store/claim-loop.js';
import type { Db } from '../../store/database.js';
import {
  type AbandonedImport,
  abandonDeadImports,
  abandonedImportsToClean,
  deleteAbandonedMonitors,
} from './abandoned-imports.js';
import { abandonedImportActor } from './monitor-audit.js';
import {
  MONITOR_IMPORT_CHUNK,
  MONITOR_IMPORT_CLEANUP_POLL_INTERVAL_MS,
  MONITOR_RUN_SHUTDOWN_GRACE_MS,
} from './monitoring-policy.js';

export interface AbandonedImportWorkerDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
}

/**
 * Cleans up imports given up while staged, in every instance, in the background: gives up those
 * whose staging instance died (their lease lapsed), then deletes their hidden monitors a chunk per
 * transaction, each deletion chained in the audit log, as the import itself was written.
 */
export class AbandonedImportWorker extends ClaimLoop<AbandonedImport> {
  constructor(private readonly deps: AbandonedImportWorkerDeps) {
    super({
      what: 'abandoned imports',
      logger: deps.logger,
      concurrency: 1,
      refillAt: 0,
      pollIntervalMs: MONITOR_IMPORT_CLEANUP_POLL_INTERVAL_MS,
      nudgeDelayMs: 0,
      shutdownGraceMs: MONITOR_RUN_SHUTDOWN_GRACE_MS,
    });
  }

  protected claim(room: number): Promise<AbandonedImport[]> {
    return inBackground(async () => {
      const abandoned = await abandonDeadImports(this.deps.db, this.deps.clock.now(), false);
      if (abandoned > 0)
        this.deps.logger.warn({ abandoned }, 'imports whose staging instance died abandoned');
      return abandonedImportsToClean(this.deps.db, room);
    });
  }

  protected run(staged: AbandonedImport, stop: AbortSignal): Promise<void> {
    return inBackground(async () => {
      const actor = abandonedImportActor(staged);
      while (!stop.aborted) {
        const deleted = await deleteAbandonedMonitors(
          this.deps.db,
          staged.id,
          actor,
          this.deps.clock.now(),
          MONITOR_IMPORT_CHUNK,
        );
        if (deleted === 0) return;
      }
    });
  }
}
