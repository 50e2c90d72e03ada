import { Type } from 'typebox';
import type { ServiceMetrics } from '../../metrics/service-metrics.js';
import type { App } from '../context.js';
import { ADMIN_AUTH_PROBLEMS, problemResponses } from '../schemas.js';

export const METRICS_PATH = '/metrics';

const metricsResponse = {
  description: 'The metrics in the Prometheus text exposition format (docs/deployment.md lists them)',
  content: { 'text/plain': { schema: Type.String() } },
};

/** What serves the text: this process's metrics, or (in a cluster's primary) every worker's. */
export type MetricsSource = Pick<ServiceMetrics, 'render' | 'contentType'>;

/** Sends the metrics as Prometheus reads them; the gauges of state are read now. */
export async function sendMetrics(metrics: MetricsSource, reply: { type(t: string): unknown }) {
  const text = await metrics.render();
  reply.type(metrics.contentType);
  return text;
}

/** `GET /metrics` on the main port, for the operator token (as `/admin/v1`). */
export function metricsRoutes(app: App, metrics: ServiceMetrics): void {
  app.get(
    METRICS_PATH,
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Prometheus metrics of this process (or without a token on METRICS_PORT)',
        security: [{ adminToken: [] }],
        response: { 200: metricsResponse, ...problemResponses(...ADMIN_AUTH_PROBLEMS) },
      },
    },
    async (_request, reply) => sendMetrics(metrics, reply),
  );
}
