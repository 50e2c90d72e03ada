import { Type } from 'typebox';
import type { App, AppContext } from '../context.js';
import { json, ListPublicationSchema, problemResponses } from '../schemas.js';

const State = Type.Union([Type.Literal('up'), Type.Literal('down')]);
const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
    database: State,
    cache: State,
    sources: Type.Record(
      Type.String(),
      Type.Union([Type.Literal('up'), Type.Literal('slow'), Type.Literal('down')]),
    ),
    lists: Type.Record(Type.String(), ListPublicationSchema, {
      description: "Per enabled list: its state, and the version in service's publication date and age",
    }),
    latency_ms: Type.Integer({ minimum: 0, description: 'Time the check took, in whole milliseconds' }),
  },
  { $id: 'Health', additionalProperties: false },
);

export function healthRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/health',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['health'],
        summary: 'Health of the service and its dependencies (no authentication)',
        response: {
          200: json(HealthSchema, 'The service is up (status ok or degraded)'),
          503: json(HealthSchema, 'The service cannot serve requests (database unreachable)'),
          ...problemResponses(500),
        },
      },
    },
    async (_request, reply) => {
      const report = await ctx.checkHealth();
      return reply.code(report.status === 'down' ? 503 : 200).send(report);
    },
  );
}
