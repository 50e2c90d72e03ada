import type { FastifyBaseLogger } from 'fastify';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { inBackground } from '../../background-work.js';
import { type Clock, millisecondsSince } from '../../clock.js';
import { type ErrorCode, ServiceError } from '../../errors.js';
import { ClaimLoop } from '../../store/claim-loop.js';
import type { Db } from '../../store/database.js';
import type { ScreeningService, ScreeningSubject } from '../screening-service.js';
import { reopenChangesMissedBy } from './list-change-queue.js';
import { monitorAuditRow } from './monitor-audit.js';
import {
  claimUnscreened,
  closeImportIfDone,
  firstScreenedStatements,
  markFirstScreeningFailed,
  retryFirstScreeningAt,
  type UnscreenedMonitor,
} from './monitor-import-queue.js';
import {
  MONITOR_FIRST_SCREENING_GROUP,
  MONITOR_FIRST_SCREENING_GROUPS,
  MONITOR_FIRST_SCREENING_POLL_INTERVAL_MS,
  MONITOR_FIRST_SCREENING_RETRY_MS,
  MONITOR_RUN_SHUTDOWN_GRACE_MS,
} from './monitoring-policy.js';

export interface FirstScreeningWorkerDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  screening: ScreeningService;
  audit: AuditWriter;
  /** The HTTP status a request failing with this code gets (for the screening's audit row). */
  statusOf: (code: ErrorCode) => number;
  /** The ids of the list versions this instance has in service. */
  inService: () => string[];
  /** List changes were opened again: wake the monitor runs. */
  changesReopened: () => void;
}

/** Refusals that stand (tried again, the screening would be refused again); others are retried. */
const FINAL_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  'quota-exceeded',
  'account-suspended',
  'validation-failed',
  'plan-feature-unavailable',
]);

/**
 * Does imported monitors' first screenings, in every instance, in the background: claims due
 * monitors, screens each group of one key as `POST /v1/screen` would (counted, stored, audited),
 * and records in the statement that counts them that the monitors are watched from then on, with
 * what they flagged. A monitor whose screening is refused for good (the month's quota reached)
 * records why and is not watched; one refused for a passing reason (every source away) is tried
 * again later. The group that finishes an import closes it.
 */
export class FirstScreeningWorker extends ClaimLoop<UnscreenedMonitor[]> {
  constructor(private readonly deps: FirstScreeningWorkerDeps) {
    super({
      what: "monitors' first screenings",
      logger: deps.logger,
      concurrency: MONITOR_FIRST_SCREENING_GROUPS,
      refillAt: MONITOR_FIRST_SCREENING_GROUPS / 2,
      pollIntervalMs: MONITOR_FIRST_SCREENING_POLL_INTERVAL_MS,
      nudgeDelayMs: 0,
      shutdownGraceMs: MONITOR_RUN_SHUTDOWN_GRACE_MS,
    });
  }

  protected claim(room: number): Promise<UnscreenedMonitor[][]> {
    return inBackground(async () =>
      groupsOf(
        await claimUnscreened(this.deps.db, this.deps.clock.now(), room * MONITOR_FIRST_SCREENING_GROUP),
      ),
    );
  }

  protected run(group: UnscreenedMonitor[]): Promise<void> {
    return inBackground(() => this.screen(group));
  }

  private async screen(group: UnscreenedMonitor[]): Promise<void> {
    const { db, clock, screening } = this.deps;
    const started = performance.now();
    const [first] = group as [UnscreenedMonitor];
    const key: ScreeningSubject =
      first.keyId === null
        ? { accountId: first.accountId, keyId: null, plan: first.plan, userId: null }
        : { accountId: first.accountId, keyId: first.keyId, plan: first.plan };
    const outcomes = first.accountActive
      ? await screening.screenGroup(
          key,
          group.map((monitor) => ({ request: monitor.request, requestId: firstScreeningRequestId(monitor) })),
          (screened) =>
            firstScreenedStatements(
              screened.map(({ index, result }) => ({ monitor: group[index]!, result })),
              clock.now(),
            ),
        )
      : group.map(() => new ServiceError('account-suspended', 'The account is suspended.'));
    const refused = outcomes.flatMap((outcome, i) =>
      outcome instanceof ServiceError ? [{ monitorId: group[i]!.id, problem: outcome.code }] : [],
    );
    await markFirstScreeningFailed(
      db,
      refused.filter((r) => FINAL_REFUSALS.has(r.problem as ErrorCode)),
    );
    await retryFirstScreeningAt(
      db,
      refused.filter((r) => !FINAL_REFUSALS.has(r.problem as ErrorCode)).map((r) => r.monitorId),
      new Date(clock.now().getTime() + MONITOR_FIRST_SCREENING_RETRY_MS),
    );
    // Screened on an instance that had not loaded a list's newest version yet: that change's run
    // is done again for them (its last pass).
    if (outcomes.length > refused.length && (await reopenChangesMissedBy(db, this.deps.inService())) > 0)
      this.deps.changesReopened();
    const latencyMs = millisecondsSince(started);
    outcomes.forEach((outcome, i) => {
      const status = outcome instanceof ServiceError ? this.deps.statusOf(outcome.code) : 200;
      this.audit(group[i]!, status, latencyMs);
    });
    for (const importId of new Set(group.map((m) => m.importId)))
      if (importId !== null) await closeImportIfDone(db, importId, clock.now());
  }

  /** The first screening's audit row, as a request creating the monitor would have left. */
  private audit(monitor: UnscreenedMonitor, status: number, latencyMs: number): void {
    this.deps.audit.record(
      monitorAuditRow(monitor, 'first-screening', {
        requestId: firstScreeningRequestId(monitor),
        at: this.deps.clock.now(),
        status,
        latencyMs,
      }),
    );
  }
}

/** The id a first screening is audited under (its audit row's, and its stored screening's). */
function firstScreeningRequestId(monitor: UnscreenedMonitor): string {
  return `${monitor.importId ?? 'monitor'}:${monitor.id}`;
}

/** Claimed monitors in groups of one account and key, at most MONITOR_FIRST_SCREENING_GROUP each. */
function groupsOf(monitors: readonly UnscreenedMonitor[]): UnscreenedMonitor[][] {
  const groups: UnscreenedMonitor[][] = [];
  const filling = new Map<string, UnscreenedMonitor[]>();
  for (const monitor of monitors) {
    const owner = `${monitor.accountId} ${monitor.keyId}`;
    let group = filling.get(owner);
    if (!group || group.length === MONITOR_FIRST_SCREENING_GROUP) {
      group = [];
      filling.set(owner, group);
      groups.push(group);
    }
    group.push(monitor);
  }
  return groups;
}
