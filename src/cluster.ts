import cluster from 'node:cluster';
import os from 'node:os';
import pino from 'pino';
import { resolveAdminToken } from './accounts/bootstrap.js';
import { type Config, ConfigError } from './config.js';
import { startMetricsServer } from './http/metrics-server.js';
import { ClusterMetrics } from './metrics/cluster-metrics.js';
import { serve } from './server.js';

/** A worker that ran this long is considered to have started fine. */
const WORKER_HEALTHY_AFTER_MS = 10_000;

/**
 * Every two cores a process when several processes can act as one (PostgreSQL for the data and
 * Redis for revocations, rate limits and the cache); one otherwise. Each process keeps two cores
 * busy under load: its main thread and its matching thread, so more processes than that only
 * contend for the cores (with PostgreSQL and Redis too) and answer fewer live screenings.
 */
export function defaultWorkerCount(config: Config): number {
  if (!config.databaseUrl || !config.redisUrl) return 1;
  return Math.max(1, Math.floor(os.availableParallelism() / 2));
}

/**
 * Runs the server in `workers` processes sharing one port (node:cluster), PostgreSQL and Redis.
 * The primary only supervises: it replaces a worker that dies and, on SIGTERM/SIGINT, stops them
 * all gracefully. The embedded database serves one process by nature, so it refuses more.
 */
export async function serveProcesses(config: Config, workers: number): Promise<void> {
  if (workers <= 1) return serve(config);
  if (!config.databaseUrl || !config.redisUrl) {
    throw new ConfigError(
      'WORKERS',
      'above 1 needs DATABASE_URL and REDIS_URL: the embedded database serves one process, and without Redis each process would keep its own rate limits and revocations',
    );
  }
  if (!cluster.isPrimary) return serve(config);

  const logger = pino({ level: config.logLevel });
  // Resolved once here, so that workers do not race to generate the token file.
  const admin = resolveAdminToken(config.adminToken, config.dataDir);
  if (admin.generatedFile)
    process.stdout.write(`\nOperator token generated: ${admin.generatedFile} (mode 0600).\n`);
  let stopping = false;
  const startedAt = new Map<number, number>();
  let restartDelayMs = 0;
  const fork = () => {
    const worker = cluster.fork({ ADMIN_TOKEN: admin.token });
    startedAt.set(worker.id, Date.now());
  };
  for (let i = 0; i < workers; i++) fork();
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(new ClusterMetrics(), {
          host: config.host,
          port: config.metricsPort,
          logger,
        });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    // A worker that dies young (bad database URL, bad settings) is restarted with a growing delay,
    // so a broken deployment does not fork in a tight loop.
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    startedAt.delete(worker.id);
    restartDelayMs =
      lived < WORKER_HEALTHY_AFTER_MS ? Math.min(Math.max(restartDelayMs * 2, 500), 30_000) : 0;
    logger.error({ pid: worker.process.pid, code, signal, restartDelayMs }, 'worker died; starting another');
    setTimeout(fork, restartDelayMs);
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping workers');
    void metricsServer?.close();
    const alive = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    let remaining = alive.length;
    if (remaining === 0) process.exit(0);
    for (const worker of alive) {
      worker.once('exit', () => {
        remaining -= 1;
        if (remaining === 0) process.exit(0);
      });
      worker.process.kill('SIGTERM');
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
