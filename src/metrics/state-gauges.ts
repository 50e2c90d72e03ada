import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { ListFreshness } from '../sources/lists/list-service.js';
import type { CircuitState } from '../sources/providers/circuit-breaker.js';
import type { SourceHealth } from '../sources/source.js';
import type { QueueDepths } from './queue-depths.js';

/** What the gauges read at scrape time; each is cheap (memory) but `queueDepths` (one query). */
export interface StateProbes {
  clock: Clock;
  lists(): ListFreshness[];
  listRefreshIntervalMinutes(): number;
  /** Every configured source's health: lists and providers. */
  sourceHealth(): Record<string, SourceHealth>;
  circuits(): { source: string; state: CircuitState }[];
  auditWriter(): { pending: number; oldestPendingAt: Date | undefined };
  /** Undefined when the database did not answer in time: the queue gauges are left out of the scrape. */
  queueDepths(): Promise<QueueDepths | undefined>;
}

const CIRCUIT_VALUES: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/**
 * Gauges of the service's state, read when Prometheus scrapes (nothing is kept up to date between
 * scrapes). Each gauge reads its own value (the registry reads them all at once, so one cannot
 * fill another), and is reset first, so a list or source that went away leaves no stale series.
 * `aggregator` says how the primary combines its workers' values (see cluster-metrics.ts).
 */
export function registerStateGauges(registry: Registry, probes: StateProbes): void {
  const registers = [registry];
  const secondsSince = (time: Date) => Math.max(0, (probes.clock.now().getTime() - time.getTime()) / 1_000);

  listGauges(registers, probes, secondsSince);
  new Gauge({
    name: 'source_up',
    aggregator: 'min',
    help: 'Whether each source can answer (1: up or slow) or not (0: down, a list missing, a circuit open).',
    labelNames: ['source'] as const,
    registers,
    collect() {
      this.reset();
      for (const [source, health] of Object.entries(probes.sourceHealth()))
        this.set({ source }, health === 'down' ? 0 : 1);
    },
  });
  new Gauge({
    name: 'source_circuit_state',
    aggregator: 'max',
    help: "Each remote provider's circuit breaker: 0 closed, 1 half-open (one trial request), 2 open (skipped).",
    labelNames: ['source'] as const,
    registers,
    collect() {
      this.reset();
      for (const { source, state } of probes.circuits()) this.set({ source }, CIRCUIT_VALUES[state]);
    },
  });
  new Gauge({
    name: 'audit_writer_pending_rows',
    aggregator: 'sum',
    help: 'Audit rows waiting to be written to the database by this process.',
    registers,
    collect() {
      this.set(probes.auditWriter().pending);
    },
  });
  new Gauge({
    name: 'audit_writer_oldest_pending_seconds',
    aggregator: 'max',
    help: 'Age of the oldest audit row not yet written to the database (0 when none waits).',
    registers,
    collect() {
      const oldest = probes.auditWriter().oldestPendingAt;
      this.set(oldest ? secondsSince(oldest) : 0);
    },
  });
  queueGauges(registers, probes);
}

function listGauges(registers: Registry[], probes: StateProbes, secondsSince: (time: Date) => number): void {
  new Gauge({
    name: 'list_version_info',
    aggregator: 'max',
    help: 'The version of each enabled list in service (value 1); no series while a list is not loaded.',
    labelNames: ['list', 'version'] as const,
    registers,
    collect() {
      this.reset();
      for (const list of probes.lists())
        if (list.version !== null) this.set({ list: list.id, version: list.version }, 1);
    },
  });
  new Gauge({
    name: 'list_loaded',
    aggregator: 'min',
    help: 'Whether each enabled list has a version in service (1) or not (0).',
    labelNames: ['list'] as const,
    registers,
    collect() {
      this.reset();
      for (const list of probes.lists()) this.set({ list: list.id }, list.version === null ? 0 : 1);
    },
  });
  new Gauge({
    name: 'list_age_seconds',
    aggregator: 'max',
    help: 'Seconds since each loaded list was last found current at its source (checked, or downloaded).',
    labelNames: ['list'] as const,
    registers,
    collect() {
      this.reset();
      for (const list of probes.lists())
        if (list.confirmedAt) this.set({ list: list.id }, secondsSince(list.confirmedAt));
    },
  });
  new Gauge({
    name: 'list_refresh_interval_seconds',
    aggregator: 'max',
    help: 'LISTS_REFRESH_INTERVAL_MINUTES in seconds, per enabled list (0: scheduled refreshes off).',
    labelNames: ['list'] as const,
    registers,
    collect() {
      this.reset();
      const interval = probes.listRefreshIntervalMinutes() * 60;
      for (const list of probes.lists()) this.set({ list: list.id }, interval);
    },
  });
}

/** The queue gauges share one query per scrape: the first to ask starts it, the others wait for it. */
function queueGauges(registers: Registry[], probes: StateProbes): void {
  let inFlight: Promise<QueueDepths | undefined> | undefined;
  const depths = () => {
    inFlight ??= probes.queueDepths().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const depthGauge = (name: string, help: string, read: (d: QueueDepths) => number) =>
    new Gauge({
      name,
      help,
      // Every process reads the same rows: several workers' answers are one figure, not a sum.
      aggregator: 'max',
      registers,
      async collect() {
        this.reset();
        const known = await depths();
        if (known) this.set(read(known));
      },
    });
  depthGauge(
    'batch_queue_depth',
    'Batch items pending or being screened (whole database).',
    (d) => d.batchItems,
  );
  depthGauge(
    'webhook_outbox_events',
    'Webhook events stored but not yet turned into deliveries (whole database).',
    (d) => d.webhookEvents,
  );
  depthGauge(
    'webhook_deliveries_pending',
    'Webhook deliveries waiting for their first attempt or a retry (whole database).',
    (d) => d.webhookDeliveries,
  );
  depthGauge(
    'monitor_runs_pending',
    'List versions whose monitor run (ongoing monitoring) is not done (whole database).',
    (d) => d.listChanges,
  );
  new Gauge({
    name: 'queue_depth_query_ok',
    aggregator: 'min',
    help: 'Whether the queue depths were read at this scrape (0: the database did not answer in time).',
    registers,
    async collect() {
      this.set((await depths()) ? 1 : 0);
    },
  });
}
