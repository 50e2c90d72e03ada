import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { METRICS_PATH, type MetricsSource, sendMetrics } from './routes/metrics.js';

/**
 * `GET /metrics` alone, without authentication, on a port of its own (`METRICS_PORT`): for a
 * Prometheus that reaches the service on a private network. Anything else is a plain 404.
 */
export async function startMetricsServer(
  metrics: MetricsSource,
  options: { host: string; port: number; logger?: FastifyBaseLogger },
): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // A scrape every few seconds is not worth a log line each.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get(METRICS_PATH, async (_request, reply) => sendMetrics(metrics, reply));
  await app.listen({ host: options.host, port: options.port });
  return app;
}
