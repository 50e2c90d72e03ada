import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { startModuleWorker } from '../worker-thread.js';
import type { EndpointPolicy } from './endpoint-guard.js';
import { DELIVERY_SHUTDOWN_GRACE_MS, DELIVERY_THREAD_RESTART_DELAY_MS } from './webhook-policy.js';

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
export type FromDeliveryThread = { type: 'settled'; id: number } | { type: 'closed' };

/**
 * Runs the delivery worker in a worker thread with its own PostgreSQL pool (PostgreSQL only: the
 * embedded database has one connection, in the main thread). Claiming, signing, sending and
 * recording deliveries then never hold up the event loop that answers requests: each delivery
 * costs about 0.35 ms of CPU, and three webhooks per screening added 1.3-1.6 ms to every
 * screening's p50 when they shared it (docs/benchmarks.md, webhooks). The work is durable rows, so
 * a thread that dies loses nothing: it is started again after a short pause, and its claims
 * return when their lease runs out.
 */
export class DeliveryThread implements WebhookDelivery {
  private worker: Worker | undefined;
  private closing = false;
  private restart: NodeJS.Timeout | undefined;
  private readonly settling = new Map<number, { resolve(): void; reject(error: Error): void }>();
  private nextId = 0;

  constructor(
    private readonly settings: DeliveryThreadSettings,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** The thread, while one runs (diagnostics; tests stop it to see it come back). */
  get thread(): Worker | undefined {
    return this.worker;
  }

  start(): void {
    if (this.closing || this.worker) return;
    const worker = startModuleWorker(import.meta.url, 'delivery-thread-worker', {
      workerData: this.settings,
    });
    worker.on('message', (message: FromDeliveryThread) => {
      if (message.type !== 'settled') return;
      this.settling.get(message.id)?.resolve();
      this.settling.delete(message.id);
    });
    worker.on('error', (error) => this.logger.error({ err: error }, 'the webhook delivery thread failed'));
    worker.on('exit', (code) => {
      this.worker = undefined;
      for (const waiting of this.settling.values())
        waiting.reject(new Error(`the webhook delivery thread stopped (exit code ${code})`));
      this.settling.clear();
      if (this.closing) return;
      this.logger.error({ code }, 'the webhook delivery thread stopped; starting it again');
      this.restart = setTimeout(() => {
        this.restart = undefined;
        this.start();
      }, DELIVERY_THREAD_RESTART_DELAY_MS);
    });
    this.worker = worker;
  }

  nudge(): void {
    this.send({ type: 'nudge' });
  }

  settle(): Promise<void> {
    if (!this.worker) return Promise.resolve();
    const id = this.nextId++;
    const settled = new Promise<void>((resolve, reject) => this.settling.set(id, { resolve, reject }));
    this.send({ type: 'settle', id });
    return settled;
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    this.send({ type: 'close' });
    // The thread gives attempts in flight the grace period, then closes its pool and ends; one
    // that does not end by then is stopped (its claims return when their lease runs out).
    const stuck = setTimeout(() => void worker.terminate(), DELIVERY_SHUTDOWN_GRACE_MS + 5_000);
    await exited;
    clearTimeout(stuck);
  }

  private send(message: ToDeliveryThread): void {
    this.worker?.postMessage(message);
  }
}
