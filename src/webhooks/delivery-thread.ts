import type { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { startThread } from '../start-thread.js';
import type { EndpointPolicy } from './endpoint-guard.js';
import {
  DELIVERY_SHUTDOWN_GRACE_MS,
  DELIVERY_THREAD_HEALTHY_AFTER_MS,
  DELIVERY_THREAD_RESTART_DELAY_MAX_MS,
  DELIVERY_THREAD_RESTART_DELAY_MS,
} from './webhook-policy.js';

/** What sends an instance's webhook deliveries: in this thread (`DeliveryWorker`) or its own. */
export interface WebhookDelivery {
  start(): void;
  /** Deliveries were queued on this instance: look for them soon. */
  nudge(): void;
  /** Resolves once nothing is due and nothing is in flight (tests, benchmarks). */
  settle(): Promise<void>;
  /** Attempts in flight get the grace period; the rest stays queued for the next start. */
  close(): Promise<void>;
}

/** Copied into the thread at its start. */
export interface DeliveryThreadSettings {
  databaseUrl: string;
  /** `SECRET_KEY` when set; otherwise the thread reads (or makes) the key file in `dataDir`. */
  secretKey: Uint8Array | undefined;
  dataDir: string;
  policy: EndpointPolicy;
  logLevel: string;
}

export type ToDeliveryThread = { type: 'nudge' } | { type: 'settle'; id: number } | { type: 'close' };
export type FromDeliveryThread =
  | { type: 'settled'; id: number }
  | { type: 'closed' }
  | { type: 'attempted'; ok: boolean };

/**
 * Runs the delivery worker in a worker thread with its own PostgreSQL pool (PostgreSQL only: the
 * embedded database has one connection, in the main thread). Claiming, signing, sending and
 * recording deliveries then never hold up the event loop that answers requests: sharing it,
 * three webhooks per screening added more than a millisecond to every screening's p50. The work
 * is durable rows, so a thread that dies loses nothing: it is started again after a pause (1 s,
 * doubling up to 30 s while it keeps dying young), and its claims return when their lease runs
 * out.
 */
export class DeliveryThread implements WebhookDelivery {
  private worker: Worker | undefined;
  private startedAt = 0;
  private closing = false;
  private restart: NodeJS.Timeout | undefined;
  private restartDelay = DELIVERY_THREAD_RESTART_DELAY_MS;
  /** Settles asked for while no thread runs, answered by the next thread. */
  private waitingForThread: (() => void)[] = [];
  private readonly settling = new Map<number, { resolve(): void; reject(error: Error): void }>();
  private nextId = 0;

  constructor(
    private readonly settings: DeliveryThreadSettings,
    private readonly logger: FastifyBaseLogger,
    /** Told of each attempt the thread records (metrics live in this thread). */
    private readonly onAttempt?: (ok: boolean) => void,
  ) {}

  /** The thread, while one runs (diagnostics; tests stop it to see it come back). */
  get thread(): Worker | undefined {
    return this.worker;
  }

  start(): void {
    if (this.closing || this.worker) return;
    const worker = startThread(import.meta.url, 'delivery-thread-entry', {
      workerData: this.settings,
    });
    worker.on('message', (message: FromDeliveryThread) => {
      if (message.type === 'attempted') this.onAttempt?.(message.ok);
      if (message.type !== 'settled') return;
      this.settling.get(message.id)?.resolve();
      this.settling.delete(message.id);
    });
    worker.on('error', (error) => this.logger.error({ err: error }, 'the webhook delivery thread failed'));
    worker.on('exit', (code) => this.exited(code));
    this.worker = worker;
    this.startedAt = performance.now();
    const waiting = this.waitingForThread;
    this.waitingForThread = [];
    for (const resume of waiting) resume();
  }

  nudge(): void {
    this.send({ type: 'nudge' });
  }

  async settle(): Promise<void> {
    if (this.closing) return;
    // A thread that is about to come back settles what it finds, as the in-process worker would.
    if (!this.worker && this.restart) await new Promise<void>((resume) => this.waitingForThread.push(resume));
    if (!this.worker) return;
    const id = this.nextId++;
    const settled = new Promise<void>((resolve, reject) => this.settling.set(id, { resolve, reject }));
    this.send({ type: 'settle', id });
    return settled;
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restart);
    this.restart = undefined;
    for (const resume of this.waitingForThread.splice(0)) resume();
    const worker = this.worker;
    if (!worker) return;
    // Not events.once: it rejects when the thread reports an error before it exits, and shutdown
    // must go on to flush the audit rows whatever the thread did.
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.send({ type: 'close' });
    // The thread gives attempts in flight the grace period, then closes its pool and ends; one
    // that does not end by then is stopped (its claims return when their lease runs out).
    const stuck = setTimeout(() => void worker.terminate(), DELIVERY_SHUTDOWN_GRACE_MS + 5_000);
    try {
      await exited;
    } finally {
      clearTimeout(stuck);
    }
  }

  private exited(code: number): void {
    this.worker = undefined;
    for (const waiting of this.settling.values())
      waiting.reject(new Error(`the webhook delivery thread stopped (exit code ${code})`));
    this.settling.clear();
    if (this.closing) return;
    // A thread that ran for a while died of something passing; one that dies young is retried
    // less and less often, so a thread that cannot start does not fill the log.
    if (performance.now() - this.startedAt > DELIVERY_THREAD_HEALTHY_AFTER_MS)
      this.restartDelay = DELIVERY_THREAD_RESTART_DELAY_MS;
    const delay = this.restartDelay;
    this.restartDelay = Math.min(delay * 2, DELIVERY_THREAD_RESTART_DELAY_MAX_MS);
    this.logger.error({ code, restartInMs: delay }, 'the webhook delivery thread stopped; starting it again');
    this.restart = setTimeout(() => {
      this.restart = undefined;
      try {
        this.start();
      } catch (error) {
        // The thread could not even be created (out of memory, no threads left): try again later.
        this.logger.error({ err: error }, 'the webhook delivery thread could not be started');
        this.exited(-1);
      }
    }, delay);
  }

  private send(message: ToDeliveryThread): void {
    this.worker?.postMessage(message);
  }
}
