import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { ScreeningObserver, ScreeningOutcome } from '../screening/screening-observer.js';
import type { FailedSource } from '../sources/source-failure.js';

/** Buckets in seconds: the API answers in milliseconds, a slow provider takes seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The label of requests no route matched (any URL): one series, whatever the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The service's Prometheus metrics of one process: counters and histograms updated as things
 * happen, plus the gauges read at scrape time that `registerStateGauges` adds to `registry`. Each
 * runtime has its own registry (tests start several in one process).
 */
export class ServiceMetrics implements ScreeningObserver {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly screenings = new Counter({
    name: 'screenings_total',
    help: 'Screenings (API, batch items, dashboard) by outcome: live, cached, refused or failed.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly cacheLookups = new Counter({
    name: 'screening_cache_lookups_total',
    help: 'Result cache lookups of screenings, by result: hit or miss.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly sourceDuration = new Histogram({
    name: 'source_answer_duration_seconds',
    help: "A source's answer time within a live screening (failed answers included), by source id.",
    labelNames: ['source'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly sourceFailures = new Counter({
    name: 'source_failures_total',
    help: 'Sources that gave no answer to a screening, by source id and reason: timeout, unavailable, error.',
    labelNames: ['source', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by result: ok or failed.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Every outcome is present from the start, so rates and alerts see 0 rather than no series.
    for (const outcome of ['live', 'cached', 'refused', 'failed'] satisfies ScreeningOutcome[])
      this.screenings.inc({ outcome }, 0);
    for (const result of ['hit', 'miss']) this.cacheLookups.inc({ result }, 0);
    for (const result of ['ok', 'failed']) this.webhookAttempts.inc({ result }, 0);
  }

  /** One answered request; `route` is the route's pattern (never the URL) or UNMATCHED_ROUTE. */
  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status });
    this.httpDuration.observe({ method, route }, seconds);
  }

  screened(outcome: ScreeningOutcome): void {
    this.screenings.inc({ outcome });
  }

  cacheLookup(hit: boolean): void {
    this.cacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  sourcesAnswered(durationsMs: Readonly<Record<string, number>>, failed: readonly FailedSource[]): void {
    for (const source in durationsMs) this.sourceDuration.observe({ source }, durationsMs[source]! / 1_000);
    for (const { source, reason } of failed) this.sourceFailures.inc({ source, reason });
  }

  webhookAttempted(ok: boolean): void {
    this.webhookAttempts.inc({ result: ok ? 'ok' : 'failed' });
  }

  /** The text exposition format, gauges read now. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
