import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { systemClock } from '../clock.js';
import { connectPostgres } from '../store/database.js';
import type { DeliveryThreadSettings, FromDeliveryThread, ToDeliveryThread } from './delivery-thread.js';
import { DeliveryWorker } from './delivery-worker.js';
import { EndpointGuard } from './endpoint-guard.js';
import { SecretBox } from './secret-box.js';
import { loadOrCreateSecretKey } from './secret-key.js';
import { DELIVERY_THREAD_NICENESS, DELIVERY_THREAD_POOL_SIZE } from './webhook-policy.js';
import { WebhookSender } from './webhook-sender.js';

// Entry of the webhook delivery thread (see delivery-thread.ts): the same DeliveryWorker as the
// in-process one, on a pool of its own, answering the main thread's nudges, settles and close.
const settings = workerData as DeliveryThreadSettings;
lowerThisThreadsPriority();
const logger = pino({ level: settings.logLevel }).child({ thread: 'webhook-delivery' });
const database = connectPostgres(settings.databaseUrl, DELIVERY_THREAD_POOL_SIZE);
const answer = (message: FromDeliveryThread) => parentPort?.postMessage(message);
const configuredKey = settings.secretKey ? Buffer.from(settings.secretKey) : undefined;
const worker = new DeliveryWorker({
  db: database.db,
  clock: systemClock,
  logger,
  secrets: new SecretBox(() => loadOrCreateSecretKey(configuredKey, settings.dataDir)),
  sender: new WebhookSender(new EndpointGuard(settings.policy)),
  onAttempt: (ok) => answer({ type: 'attempted', ok }),
});
worker.start();

/**
 * Deliveries are background work: on Linux this thread runs at a lower CPU priority than the one
 * answering requests, so that on a busy machine a request waits less often for a core behind a
 * burst of deliveries (the three-webhook bench adds less latency to screenings with it).
 * Elsewhere, or if the system refuses, it runs as it is.
 */
function lowerThisThreadsPriority(): void {
  try {
    // On Linux a thread is a task with its own id, which setpriority() takes like a process id.
    // "<pid>/task/<tid>"; anything else (another PID namespace's /proc) is left alone.
    const link = /^(\d+)\/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'));
    const taskId = Number(link?.[2]);
    if (link && Number(link[1]) === process.pid && taskId !== process.pid)
      os.setPriority(taskId, DELIVERY_THREAD_NICENESS);
  } catch {
    // Not Linux, or no /proc: the thread keeps the process's priority.
  }
}

parentPort?.on('message', async (message: ToDeliveryThread) => {
  if (message.type === 'nudge') {
    worker.nudge();
  } else if (message.type === 'settle') {
    await worker.settle();
    answer({ type: 'settled', id: message.id });
  } else {
    try {
      await worker.close();
      await database.close();
    } catch (error) {
      logger.error({ err: error }, 'the webhook delivery thread did not close cleanly');
    } finally {
      answer({ type: 'closed' });
      parentPort?.close();
    }
  }
});
