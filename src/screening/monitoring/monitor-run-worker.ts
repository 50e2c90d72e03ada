import type { FastifyBaseLogger } from 'fastify';
import { PLANS } from '../../accounts/plans.js';
import { recordChanges } from '../../audit/audited-change.js';
import { inBackground } from '../../background-work.js';
import type { Clock } from '../../clock.js';
import { type ErrorCode, ServiceError } from '../../errors.js';
import type { ListSnapshotStore } from '../../sources/lists/snapshot-store.js';
import { ClaimLoop } from '../../store/claim-loop.js';
import type { Db } from '../../store/database.js';
import { standingDecisions } from '../decisions/decision-store.js';
import type { ScreeningService } from '../screening-service.js';
import { alertsOfScreening, type NewAlert, raiseAlertStatements } from './alert-store.js';
import {
  type ClaimedChange,
  claimChanges,
  markDone,
  recordFailure,
  releaseClaim,
  renewClaim,
  saveProgress,
} from './list-change-queue.js';
import { type ChangeSummary, ListChangeThread } from './list-change-thread.js';
import type { RemovedRecord } from './list-delta.js';
import { monitorActor } from './monitor-audit.js';
import { siftSubject } from './monitor-sift.js';
import {
  anyWatchedMonitor,
  forgetFlags,
  monitorsFlaggedFor,
  type RunMonitor,
  runMonitorsPage,
} from './monitor-store.js';
import {
  MONITOR_FIRST_SCREENED_SKEW_MS,
  MONITOR_RUN_LEASE_MS,
  MONITOR_RUN_MAX_ATTEMPTS,
  MONITOR_RUN_PAGE,
  MONITOR_RUN_PAGES_AHEAD,
  MONITOR_RUN_POLL_INTERVAL_MS,
  MONITOR_RUN_RETRY_BASE_MS,
  MONITOR_RUN_SCREENINGS_AT_ONCE,
  MONITOR_RUN_SHUTDOWN_GRACE_MS,
} from './monitoring-policy.js';

export interface MonitorRunWorkerDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  screening: ScreeningService;
  snapshots: ListSnapshotStore;
  /** The ids of the list versions this instance has in service. */
  inService: () => string[];
  /** An alert was raised: its monitor.alert event may be queued. */
  onAlert: () => void;
}

/** What a run found and did, kept with the change. */
interface RunSummary {
  changed: number;
  removed: number;
  monitors: number;
  screened: number;
  alerts: number;
  /** Monitors whose request the account can no longer screen (a plan downgrade): not screened. */
  refused: number;
}

/** A run gave up: its claim was lost to another instance (it keeps its work). */
class ClaimLost extends Error {}

/**
 * Runs the list changes, in every instance: claims a new list version's change, works out what it
 * added, changed and removed (`listDelta`), and goes through the watched monitors of every account
 * a page at a time. Each page is sifted against an index of the changed records only, so a full
 * screening (stored, not counted) is done for the few monitors a change may touch, whose alerts are
 * raised in the statement that stores it. A last pass takes the monitors first screened since the
 * change was written, which the pages (in id order) may have passed by.
 *
 * Progress is saved after each page and the claim renewed while the run lasts; a run that dies is
 * taken up again from its last page when its claim lapses, and the alerts' unique index keeps a
 * repeated page from raising anything twice. Every write carries the claim's token, so a run whose
 * claim lapsed stops at its next write. A failed attempt is retried later, at most
 * `MONITOR_RUN_MAX_ATTEMPTS` times, then the change is given up, logged as an error.
 */
export class MonitorRunWorker extends ClaimLoop<ClaimedChange> {
  constructor(private readonly deps: MonitorRunWorkerDeps) {
    super({
      what: 'monitor runs',
      logger: deps.logger,
      concurrency: 1,
      refillAt: 0,
      pollIntervalMs: MONITOR_RUN_POLL_INTERVAL_MS,
      nudgeDelayMs: 0,
      shutdownGraceMs: MONITOR_RUN_SHUTDOWN_GRACE_MS,
    });
  }

  protected claim(room: number): Promise<ClaimedChange[]> {
    const { db, clock } = this.deps;
    return claimChanges(db, clock.now(), MONITOR_RUN_LEASE_MS, this.deps.inService(), room);
  }

  /**
   * No one waits on a monitor run: like a batch, it is background work, which the database pool
   * and the matching thread serve after interactive requests.
   */
  protected run(change: ClaimedChange, stop: AbortSignal): Promise<void> {
    return inBackground(() => this.attempt(change, stop));
  }

  private async attempt(change: ClaimedChange, stop: AbortSignal): Promise<void> {
    const { db, clock, logger } = this.deps;
    if (change.failures >= MONITOR_RUN_MAX_ATTEMPTS) {
      await markDone(db, change, clock.now(), { abandoned: change.lastError ?? 'unknown' });
      logger.error(
        { list: change.listId, change: change.id, failures: change.failures, error: change.lastError },
        'monitor run given up: the monitors were not screened against this list change',
      );
      return;
    }
    const lease = new LeaseKeeper(this.deps, change);
    try {
      await this.runChange(change, stop, lease);
      // Stopped by a shutdown: the change is free at once for another instance or the restart.
      if (stop.aborted && !lease.lost) await releaseClaim(db, change);
    } catch (error) {
      if (error instanceof ClaimLost || lease.lost) {
        logger.warn({ list: change.listId, change: change.id }, 'monitor run lost its claim; stopped');
        return;
      }
      const retryAt = new Date(clock.now().getTime() + MONITOR_RUN_RETRY_BASE_MS * 2 ** change.failures);
      const reason = error instanceof Error ? error.message : String(error);
      logger.error(
        {
          err: error,
          list: change.listId,
          change: change.id,
          failures: change.failures + 1,
          retry_at: retryAt,
        },
        'monitor run failed; it is retried from its last page',
      );
      await recordFailure(db, change, reason, retryAt).catch(() => undefined);
    } finally {
      lease.stop();
    }
  }

  private async runChange(change: ClaimedChange, stop: AbortSignal, lease: LeaseKeeper): Promise<void> {
    const { db, clock, snapshots } = this.deps;
    // No monitor at all (a new installation loading its first lists): the delta, seconds of CPU
    // at start, would be worked out for nothing. A monitor first screened later on an instance
    // that lagged behind this version opens the change again (see reopenChangesMissedBy).
    if (!(await anyWatchedMonitor(db))) {
      const summary = { monitors: 0, skipped: 'no watched monitors' };
      if (!(await markDone(db, change, clock.now(), summary))) throw new ClaimLost();
      this.deps.logger.info({ list: change.listId, change: change.id, ...summary }, 'monitor run done');
      return;
    }
    const current = await snapshots.loadSnapshot(change.snapshotId);
    if (!current) {
      await markDone(db, change, clock.now(), { skipped: 'the version is no longer stored' });
      this.deps.logger.error(
        { list: change.listId, change: change.id },
        'monitor run skipped: the list version was pruned before its run; monitors were not screened against it',
      );
      return;
    }
    const previous = change.previousSnapshotId
      ? await snapshots.loadSnapshot(change.previousSnapshotId)
      : undefined;
    const { thread, delta } = await ListChangeThread.start(change.listId, previous?.chunks, current.chunks);
    const summary: RunSummary = {
      changed: delta.changed.length,
      removed: delta.removed.length,
      monitors: 0,
      screened: 0,
      alerts: 0,
      refused: 0,
    };
    try {
      if (delta.changed.length + delta.removed.length > 0) {
        const run = new ChangeRun(this.deps, change, current.meta.version, delta, summary, thread);
        const keepGoing = () => !stop.aborted && !lease.lost;
        const saved = async (cursor: string) => {
          if (!(await saveProgress(db, change, cursor, lease.until()))) throw new ClaimLost();
        };
        const finished = await run.pass(
          (after) => runMonitorsPage(db, after, MONITOR_RUN_PAGE),
          change.monitorCursor,
          keepGoing,
          saved,
        );
        // Stopped: the claim lapses and a later run goes on from the saved page.
        if (!finished) return;
        // Monitors first screened since the change was written: one whose id the pages had passed
        // may have been screened by an instance that did not serve this version yet.
        const since = new Date(change.createdAt.getTime() - MONITOR_FIRST_SCREENED_SKEW_MS);
        const lastPass = await run.pass(
          (after) => runMonitorsPage(db, after, MONITOR_RUN_PAGE, since),
          null,
          keepGoing,
          async () => undefined,
        );
        if (!lastPass) return;
      }
    } finally {
      await thread.close();
    }
    if (!(await markDone(db, change, clock.now(), { ...summary }))) throw new ClaimLost();
    this.deps.logger.info(
      { list: change.listId, version: current.meta.version, ...summary },
      'monitor run done',
    );
  }
}

/**
 * Renews a run's claim while it lasts (a page of many full screenings may take longer than the
 * lease), and notices when the claim was lost.
 */
class LeaseKeeper {
  lost = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly deps: Pick<MonitorRunWorkerDeps, 'db' | 'clock' | 'logger'>,
    private readonly change: ClaimedChange,
  ) {
    this.timer = setInterval(() => void this.renew(), MONITOR_RUN_LEASE_MS / 4).unref();
  }

  until(): Date {
    return new Date(this.deps.clock.now().getTime() + MONITOR_RUN_LEASE_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    try {
      if (!(await renewClaim(this.deps.db, this.change, this.until()))) this.lost = true;
    } catch (error) {
      // The database is away: the run's own next write fails too, and the attempt is retried.
      this.deps.logger.warn({ err: error, change: this.change.id }, 'renewing a monitor run claim failed');
    }
  }
}

/** What a monitor is known to be flagged for, of the change's records: states by flag id. */
type KnownFlags = ReadonlyMap<string, readonly { recordHash: string; flag: NewAlert['flag'] }[]>;

/** Problems that refuse one monitor's request for its account, not the run. */
const REFUSALS: ReadonlySet<ErrorCode> = new Set(['validation-failed', 'plan-feature-unavailable']);

/** A page of monitors read and sifted: those to screen, with what each is known to be flagged for. */
interface SiftedPage {
  size: number;
  last: string | null;
  touched: { monitor: RunMonitor; known: KnownFlags }[];
}

/** One list change's run over the pages of monitors. */
class ChangeRun {
  private readonly changedById: Map<string, { recordHash: string }>;
  private readonly deltaIds: ReadonlySet<string>;

  constructor(
    private readonly deps: MonitorRunWorkerDeps,
    private readonly change: ClaimedChange,
    private readonly version: string,
    private readonly delta: ChangeSummary,
    private readonly summary: RunSummary,
    private readonly thread: ListChangeThread,
  ) {
    this.changedById = new Map(delta.changed.map((r) => [r.flagId, { recordHash: r.recordHash }]));
    this.deltaIds = new Set([...delta.changed.map((r) => r.flagId), ...delta.removed.map((r) => r.flagId)]);
  }

  /**
   * Goes through the pages `read` gives after `from`, in a pipeline: while the monitors one page
   * passed are screened here, the next pages (`MONITOR_RUN_PAGES_AHEAD`) are read one after the
   * other and sifted in the run's thread. `saved` is called with a page's last id once its
   * screenings are done. False when stopped on the way.
   */
  async pass(
    read: (after: string | null) => Promise<RunMonitor[]>,
    from: string | null,
    keepGoing: () => boolean,
    saved: (cursor: string) => Promise<void>,
  ): Promise<boolean> {
    let reading = handled(read(from));
    const ahead: Promise<SiftedPage>[] = [];
    for (;;) {
      if (!keepGoing()) return false;
      while (ahead.length < MONITOR_RUN_PAGES_AHEAD) {
        const page = reading;
        ahead.push(handled(this.sifted(page)));
        // Past the last page the reads are empty at once.
        reading = handled(page.then((monitors) => (monitors.length === 0 ? [] : read(monitors.at(-1)!.id))));
      }
      const page = await ahead.shift()!;
      if (page.size === 0) return true;
      await this.screenAll(page.touched);
      await saved(page.last!);
    }
  }

  /** The page read, with its monitors' known flags and the sift of the others, both at once. */
  private async sifted(reading: Promise<RunMonitor[]>): Promise<SiftedPage> {
    const monitors = await reading;
    const eligible = monitors.filter((m) => m.accountActive && PLANS[m.plan].monitoring);
    const [known, passed] = await Promise.all([
      monitorsFlaggedFor(
        this.deps.db,
        eligible.map((m) => m.id),
        this.deltaIds,
      ),
      eligible.length === 0 ? [] : this.thread.sift(eligible.map(siftSubject)),
    ]);
    const passing = new Set(passed.map((i) => eligible[i]!));
    this.summary.monitors += monitors.length;
    return {
      size: monitors.length,
      last: monitors.at(-1)?.id ?? null,
      touched: eligible
        .filter((monitor) => passing.has(monitor) || known.has(monitor.id))
        .map((monitor) => ({ monitor, known: known.get(monitor.id) ?? new Map() })),
    };
  }

  /** A screening waits on the database and the matching thread most of its time: a few at once. */
  private async screenAll(touched: SiftedPage['touched']): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < touched.length) {
        const { monitor, known } = touched[next++]!;
        await this.screenOne(monitor, known);
      }
    };
    await Promise.all(Array.from({ length: MONITOR_RUN_SCREENINGS_AT_ONCE }, worker));
  }

  private async screenOne(monitor: RunMonitor, known: KnownFlags): Promise<void> {
    try {
      await this.screen(monitor, known);
    } catch (error) {
      // The account can no longer screen this request (its plan changed): the others go on.
      if (!(error instanceof ServiceError) || !REFUSALS.has(error.code)) throw error;
      this.summary.refused++;
      this.deps.logger.warn(
        { monitor: monitor.id, account: monitor.accountId, problem: error.code },
        'a monitor could not be screened against a list change',
      );
    }
  }

  private async screen(monitor: RunMonitor, known: KnownFlags): Promise<void> {
    const { clock, screening, db } = this.deps;
    this.summary.screened++;
    const cleared = await this.clearedRemovals(monitor, known);
    const now = clock.now();
    const alertOf = (flag: NewAlert['flag'], recordHash: string, reason: NewAlert['reason']): NewAlert => ({
      accountId: monitor.accountId,
      monitorId: monitor.id,
      reference: monitor.reference,
      flagId: flag.id,
      recordHash,
      reason,
      list: this.change.listId,
      listVersion: this.version,
      listChangeId: this.change.id,
      flag,
    });
    // Removed from this version, and not flagged by the screening against the lists in service (a
    // later version in service may have listed the record again: its own change tells).
    let gone: readonly RemovedRecord[] = [];
    // The alerts' audit rows name this request id: the stored screening names it too.
    const requestId = `${this.change.id}:${monitor.id}`;
    // The alerts the statement inserted (a run repeated inserts none twice), read once, in its transaction.
    let raised = 0;
    const { stored } = await screening.screenUncounted(
      { accountId: monitor.accountId, keyId: monitor.keyId, plan: monitor.plan, userId: null },
      { request: monitor.request, requestId },
      (screened) => {
        const stillFlagged = new Set(screened.flags.map((flag) => flag.id));
        gone = this.delta.removed.filter((removed) => !stillFlagged.has(removed.flagId));
        const alerts: NewAlert[] = [];
        for (const flag of screened.flags) {
          const changed = this.changedById.get(flag.id);
          const recordHash = String(flag.details.record_hash);
          // A later version may already be in service: its own change raises what differs.
          if (!changed || changed.recordHash !== recordHash) continue;
          // Decided on in this very state: the analyst has seen it.
          if (flag.decision !== undefined) continue;
          const states = known.get(flag.id);
          if (states?.some((s) => s.recordHash === recordHash)) continue;
          alerts.push(alertOf(flag, recordHash, states ? 'record_changed' : 'new_match'));
        }
        for (const removed of gone) {
          const last = known.get(removed.flagId)?.at(-1);
          if (!last || cleared.has(`${removed.flagId} ${removed.recordHash}`)) continue;
          alerts.push(alertOf(last.flag, removed.recordHash, 'record_removed'));
        }
        return alerts.length === 0
          ? undefined
          : raiseAlertStatements(monitor.accountId, screened.id, alerts, now);
      },
      // Chained with the alerts they raise, in their transaction: an alert is never visible (and
      // closable) before its `alert.raised` row, and never stored without it.
      async (trx, screened) => {
        const ids = (await alertsOfScreening(trx, screened.id)).map((alert) => alert.id);
        await recordChanges(trx, monitorActor(monitor, 'alerts', requestId), now, 'alert.raised', ids);
        raised = ids.length;
      },
    );
    // A removed record is forgotten (after its alert is stored): listed again, it is news again.
    await forgetFlags(
      db,
      monitor.id,
      gone.filter((removed) => known.has(removed.flagId)).map((removed) => removed.flagId),
    );
    if (!stored) return;
    this.summary.alerts += raised;
    if (raised > 0) this.deps.onAlert();
  }

  /**
   * The removed records this monitor's subject has standing false-positive decisions on, in the
   * state removed (`flag id` and hash): a cleared match leaving the list is no news.
   */
  private async clearedRemovals(
    monitor: RunMonitor,
    known: ReadonlyMap<string, unknown>,
  ): Promise<Set<string>> {
    if (!this.delta.removed.some((removed) => known.has(removed.flagId))) return new Set();
    const standing = await standingDecisions(this.deps.db, monitor.accountId, monitor.subjectKey);
    return new Set(
      standing
        .filter((decision) => decision.decision === 'false_positive')
        .map((decision) => `${decision.flag_id} ${decision.record_hash}`),
    );
  }
}

/** `promise`, with its rejection marked handled until it is awaited (a pass may stop before that). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
