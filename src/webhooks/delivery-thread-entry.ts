import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { systemClock } from '../clock.js';
import { connectPostgres } from '../store/database.js';
import { lowerThisThreadsPriority } from '../thread-priority.js';
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
// Deliveries are background work: a request waits less often for a core behind a burst of them.
lowerThisThreadsPriority(DELIVERY_THREAD_NICENESS);
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
