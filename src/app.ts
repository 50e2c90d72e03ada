import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { registerDashboard } from './dashboard/dashboard.js';
import type { App, AppContext } from './http/context.js';
import { registerJsonBodyParser } from './http/json-body-parser.js';
import { lazySerializers } from './http/lazy-serializers.js';
import { registerAuditTrail } from './http/plugins/audit-trail.js';
import { registerAuthentication } from './http/plugins/authentication.js';
import {
  answerClientError,
  registerProblemResponses,
  sendProblem,
} from './http/plugins/problem-responses.js';
import { registerRequestMetrics } from './http/plugins/request-metrics.js';
import { adminAccountRoutes } from './http/routes/admin/accounts.js';
import { adminAuditRoutes } from './http/routes/admin/audit.js';
import { adminKeyRoutes } from './http/routes/admin/keys.js';
import { adminListRoutes } from './http/routes/admin/lists.js';
import { adminUserRoutes } from './http/routes/admin/users.js';
import { auditRoutes } from './http/routes/audit.js';
import { batchRoutes } from './http/routes/batch.js';
import { decisionRoutes } from './http/routes/decisions.js';
import { docsRoutes, registerOpenApi } from './http/routes/docs.js';
import { healthRoutes } from './http/routes/health.js';
import { keyRoutes } from './http/routes/keys.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { monitorRoutes } from './http/routes/monitors.js';
import { screenRoutes } from './http/routes/screen.js';
import { usageRoutes } from './http/routes/usage.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { compileValidator } from './http/validation.js';

export const BODY_LIMIT_BYTES = 1_048_576;
export const REQUEST_TIMEOUT_MS = 30_000;
export const HEADERS_TIMEOUT_MS = 10_000;

export interface AppOptions {
  /** The process logger; without one the app logs nothing (tests). */
  logger?: FastifyBaseLogger;
  trustProxy?: boolean | number | string[];
  version?: string;
}

/** Builds the HTTP application around the given services; tests build one per test file. */
export async function buildApp(ctx: AppContext, options: AppOptions = {}): Promise<App> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // A number means "trust that many hops"; Fastify accepts it although its types omit it.
    trustProxy: (options.trustProxy ?? false) as boolean,
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_TIMEOUT_MS,
    genReqId: () => randomUUID(),
    // A URL that cannot even be routed still gets a problem document (and a request id).
    frameworkErrors: (error, request, reply) => {
      sendProblem(request, reply, 'malformed-request', `The request could not be read: ${error.message}`);
    },
    // Requests the HTTP parser rejects get a problem document too (bad framing, headers over 16 KB).
    clientErrorHandler: answerClientError,
    // Fastify's own answer to a request that arrives while the server closes (a keep-alive
    // connection busy at the time sends another) is plain JSON without the service's headers; the
    // hook below answers it as a problem instead.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.headersTimeout = HEADERS_TIMEOUT_MS;
  app.setValidatorCompiler(compileValidator);
  // Request bodies are JSON only: a text/plain body is refused with 415, not half-parsed.
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);

  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', String(request.id));
    // Every body is read as the type it is labelled with: a browser opening an API answer (a
    // problem document that echoes a path, a CSV of results) never runs it as a page or a script.
    reply.header('X-Content-Type-Options', 'nosniff');
  });
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    // Before the audit trail and authentication: the process is going away, the caller should
    // retry (elsewhere behind a balancer) on a new connection.
    reply.header('Connection', 'close').header('Retry-After', '1');
    return sendProblem(request, reply, 'service-unavailable', 'The server is shutting down; retry shortly.');
  });
  registerProblemResponses(app);
  registerRequestMetrics(app, ctx.metrics);
  // The audit trail first: while rows cannot be written, nothing else is looked at.
  registerAuditTrail(app, ctx.audit, ctx.clock);
  registerAuthentication(app, ctx);
  await registerOpenApi(app, options.version ?? '0.0.0');

  healthRoutes(app, ctx);
  screenRoutes(app, ctx);
  batchRoutes(app, ctx);
  decisionRoutes(app, ctx);
  monitorRoutes(app, ctx);
  keyRoutes(app, ctx);
  usageRoutes(app, ctx);
  auditRoutes(app, ctx);
  webhookRoutes(app, ctx);
  adminAccountRoutes(app, ctx);
  adminKeyRoutes(app, ctx);
  adminAuditRoutes(app, ctx);
  adminListRoutes(app, ctx);
  adminUserRoutes(app, ctx);
  metricsRoutes(app, ctx.metrics);
  await docsRoutes(app);
  await registerDashboard(app, ctx);
  await app.ready();
  return app;
}
