import { PLANS } from '../../accounts/plans.js';
import type { UsageLedger } from '../../accounts/usage-ledger.js';
import type { AuditActor } from '../../audit/audited-change.js';
import { inBackground } from '../../background-work.js';
import { type Clock, isoDay } from '../../clock.js';
import { notFound, ServiceError } from '../../errors.js';
import { isUuid, newId } from '../../ids.js';
import type { Source } from '../../sources/source.js';
import type { Db } from '../../store/database.js';
import { type BatchSubmission, checkBatchItems } from '../batches/batch-input.js';
import {
  type ResolvedScreening,
  resolveScreeningRequest,
  type ScreeningRequest,
} from '../screening-request.js';
import type { ScreeningResult } from '../screening-result.js';
import type { ScreeningService, ScreeningSubject } from '../screening-service.js';
import { subjectKey } from '../screening-subject.js';
import { type AlertStatus, type AlertView, closeAlert, listAlerts } from './alert-store.js';
import { reopenChangesMissedBy } from './list-change-queue.js';
import { findImport, type ImportView } from './monitor-import-queue.js';
import {
  deleteMonitor,
  findMonitor,
  insertMonitor,
  listMonitors,
  lockedMonitorCount,
  monitorCount,
  type NewMonitor,
  type StoredMonitor,
} from './monitor-store.js';
import { MONITOR_IMPORT_ITEMS, MONITORING_PAGE_DEFAULT, MONITORING_PAGE_MAX } from './monitoring-policy.js';
import { storeImport } from './staged-import.js';

/**
 * A monitor as the API shows it: the request it screens with, when it was made, and whether it is
 * watched: `active` from its first screening on, `pending` while an imported one's is due, `failed`
 * when that could not be done (`first_screening_error`, a problem type).
 */
export type MonitorView = Omit<ScreeningRequest, 'reference'> & {
  id: string;
  reference: string | null;
  status: 'active' | 'pending' | 'failed';
  first_screening_id: string | null;
  first_screening_error: string | null;
  created_at: string;
};

export interface MonitorServiceDeps {
  db: Db;
  clock: Clock;
  screening: ScreeningService;
  usage: UsageLedger;
  sources: () => readonly Source[];
  /** An import was stored: wake this instance's first-screening worker. */
  imported: () => void;
  /** An import failed while it was staged: wake this instance's clean-up of abandoned imports. */
  importAbandoned: () => void;
  /** The ids of the list versions this instance has in service. */
  inService: () => string[];
  /** List changes were opened again: wake the monitor runs. */
  changesReopened: () => void;
}

/** Monitors and their alerts: what the routes (and later the dashboard) call. */
export class MonitorService {
  constructor(private readonly deps: MonitorServiceDeps) {}

  /**
   * Starts monitoring a subject: its first screening is an ordinary one (validated, counted
   * against the quota, stored), and what it flagged is remembered, so that only a later change of
   * the lists alerts. Refused before anything is screened when the plan has no monitoring (403) or
   * no room for another monitor (402); refused after screening only when concurrent creations
   * took the last room meanwhile: the screening is then neither counted nor stored, as the monitor,
   * its first screening and its count are written in one transaction, under the account's lock.
   */
  async create(
    key: ScreeningSubject,
    request: ScreeningRequest,
    actor: AuditActor,
  ): Promise<MonitorView & { screening: ScreeningResult }> {
    const plan = PLANS[key.plan];
    if (!plan.monitoring) throw noMonitoring();
    await this.assertRoom(key.accountId, plan.monitorsMax);
    // Resolved as the screening resolves it (a bad request is refused the same way, uncounted).
    const resolved = resolveScreeningRequest(
      request,
      plan,
      this.deps.sources(),
      isoDay(this.deps.clock.now()),
    );
    const createdAt = this.deps.clock.now();
    let monitor: NewMonitor | undefined;
    // The screening names the creating request, whose `monitor.created` row commits with it.
    const audited = { request, requestId: actor.request_id };
    const screening = await this.deps.screening.screen(key, audited, (result, store) =>
      this.deps.db.transaction().execute(async (trx) => {
        const max = plan.monitorsMax;
        if (max !== null && (await lockedMonitorCount(trx, key.accountId)) >= max) throw limitReached(max);
        await store(trx);
        monitor = {
          id: newId(),
          accountId: key.accountId,
          keyId: key.keyId,
          ...subjectOf(resolved),
          request,
          createdAt,
          firstScreenedAt: createdAt,
          firstScreeningId: result.id,
          firstScreeningError: null,
        };
        await insertMonitor(trx, monitor, result.flags, actor);
      }),
    );
    // Screened on an instance that had not loaded a list's newest version yet: that change's run
    // is done again for it (its last pass).
    if ((await reopenChangesMissedBy(this.deps.db, this.deps.inService())) > 0) this.deps.changesReopened();
    return { ...view(monitor!), screening };
  }

  /**
   * What refuses an import before its body is read (the route asks before the body parser runs):
   * a plan without monitoring, an account already at its plan's monitors, a month with no
   * screening left for their first screenings.
   */
  async admitImport(key: ScreeningSubject): Promise<void> {
    const plan = PLANS[key.plan];
    if (!plan.monitoring) throw noMonitoring();
    await this.assertRoom(key.accountId, plan.monitorsMax);
    await this.deps.usage.assertAvailable(key);
  }

  /**
   * Imports many parties at once (at most MONITOR_IMPORT_MAX), as a batch is taken: every row
   * checked first (one bad row refuses the whole import, naming each), the plan's monitor limit and
   * the month's remaining screenings checked for all of them, then stored in chunks, visible all at
   * once when the last is in (staged-import.ts). Their first screenings (counted) are done in the
   * background; each monitor is watched from its own.
   */
  async import(key: ScreeningSubject, submission: BatchSubmission, actor: AuditActor): Promise<ImportView> {
    await this.admitImport(key);
    const plan = PLANS[key.plan];
    const today = isoDay(this.deps.clock.now());
    const configured = this.deps.sources();
    const items = await checkBatchItems(submission, plan, configured, today, MONITOR_IMPORT_ITEMS);
    await this.deps.usage.assertRoomFor(
      key,
      items.length,
      'their first screenings are counted, so nothing was imported',
    );
    const monitors = items.map(({ request, resolved }) => ({ ...subjectOf(resolved!), request }));
    const id = newId();
    const createdAt = this.deps.clock.now();
    const entry = { id, accountId: key.accountId, keyId: key.keyId, createdAt };
    // Stored as background work, in chunks: each of its transactions is given the database only
    // when no request is waiting for it (docs/reliability.md, "Batch work yields").
    let stored: boolean;
    try {
      stored = await inBackground(() =>
        storeImport(this.deps.db, entry, monitors, plan.monitorsMax, actor, () => this.deps.clock.now()),
      );
    } catch (error) {
      this.deps.importAbandoned();
      throw error;
    }
    if (!stored) throw limitReached(plan.monitorsMax ?? 0);
    this.deps.imported();
    return {
      id,
      status: 'processing',
      total: monitors.length,
      screened: 0,
      failed: 0,
      created_at: createdAt.toISOString(),
      completed_at: null,
    };
  }

  async getImport(accountId: string, id: string): Promise<ImportView> {
    const found = isUuid(id) ? await findImport(this.deps.db, accountId, id) : undefined;
    if (!found) throw notFound('The import');
    return found;
  }

  async get(accountId: string, id: string): Promise<MonitorView> {
    const monitor = await findMonitor(this.deps.db, accountId, id);
    if (!monitor) throw notFound('The monitor');
    return view(monitor);
  }

  async list(
    accountId: string,
    filter: { reference?: string | undefined; cursor?: string | undefined; limit?: number | undefined },
  ): Promise<{ data: MonitorView[]; next_cursor: string | null }> {
    const page = await listMonitors(this.deps.db, accountId, { ...filter, limit: pageSize(filter.limit) });
    return { data: page.data.map(view), next_cursor: page.next_cursor };
  }

  async delete(actor: AuditActor, id: string): Promise<void> {
    if (!(await deleteMonitor(this.deps.db, actor, id, this.deps.clock.now()))) throw notFound('The monitor');
  }

  alerts(
    accountId: string,
    filter: {
      status?: AlertStatus | undefined;
      monitorId?: string | undefined;
      cursor?: string | undefined;
      limit?: number | undefined;
    },
  ): Promise<{ data: AlertView[]; next_cursor: string | null }> {
    return listAlerts(this.deps.db, accountId, { ...filter, limit: pageSize(filter.limit) });
  }

  /** Closes an alert with the analyst's note (an alert already closed keeps its first note). */
  async closeAlert(actor: AuditActor, id: string, note: string): Promise<AlertView> {
    const alert = await closeAlert(this.deps.db, actor, id, note, this.deps.clock.now());
    if (!alert) throw notFound('The alert');
    return alert;
  }

  private async assertRoom(accountId: string, max: number | null): Promise<void> {
    if (max === null) return;
    if ((await monitorCount(this.deps.db, accountId)) >= max) throw limitReached(max);
  }
}

/** What a monitor keeps of its resolved request: whom it is about, and the name the runs sift. */
function subjectOf(resolved: ResolvedScreening) {
  return {
    reference: resolved.reference ?? null,
    subjectKey: subjectKey(resolved),
    entity: resolved.entity,
    queryType: resolved.type,
  };
}

function noMonitoring(): ServiceError {
  return new ServiceError(
    'plan-feature-unavailable',
    'Ongoing monitoring needs the Professional or Enterprise plan.',
  );
}

function limitReached(max: number): ServiceError {
  return new ServiceError(
    'monitor-limit-reached',
    `The account already has ${max} monitors, the most its plan allows; delete one first.`,
  );
}

function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(1, limit ?? MONITORING_PAGE_DEFAULT), MONITORING_PAGE_MAX);
}

function view(monitor: StoredMonitor): MonitorView {
  return {
    id: monitor.id,
    ...monitor.request,
    reference: monitor.reference,
    status:
      monitor.firstScreeningId !== null
        ? 'active'
        : monitor.firstScreeningError !== null
          ? 'failed'
          : 'pending',
    first_screening_id: monitor.firstScreeningId,
    first_screening_error: monitor.firstScreeningError,
    created_at: monitor.createdAt.toISOString(),
  };
}
