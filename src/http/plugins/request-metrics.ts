import type { FastifyInstance } from 'fastify';
import { type ServiceMetrics, UNMATCHED_ROUTE } from '../../metrics/service-metrics.js';

/**
 * Counts every answered request by its route's pattern (never the URL: one series per route,
 * whatever callers send) and status, with its time from Fastify's own measure.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    metrics.requestAnswered(request.method, route, reply.statusCode, reply.elapsedTime / 1_000);
  });
}
