import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../errors.js';
import type { App, AppContext } from '../http/context.js';
import { PROBLEMS } from '../http/problems.js';
import { alertRoutes } from './alert-routes.js';
import { auditRoutes } from './audit-routes.js';
import { decisionRoutes } from './decision-routes.js';
import { templateHelpers } from './formatting.js';
import { keyRoutes } from './key-routes.js';
import { monitorImportRoutes } from './monitor-import-routes.js';
import { monitorRoutes } from './monitor-routes.js';
import { ASSETS_DIR, DASHBOARD_PREFIX, HTMX_DIR, HTMX_FILE, VIEWS_DIR } from './paths.js';
import { screeningRoutes } from './screening-routes.js';
import { addSecurityHeaders } from './security-headers.js';
import { csrfRefusal, isHtmx, sessionHook } from './session-guard.js';
import { renderSignIn, signInRoutes } from './sign-in-routes.js';
import { fieldWithNul, nulMessage } from './unstorable-text.js';
import { usageRoutes } from './usage-routes.js';
import { webhookRoutes } from './webhook-routes.js';

/**
 * Dashboard forms are a few short fields: anything larger is not one of them. The CSV import
 * alone takes more (IMPORT_FORM_BODY_LIMIT_BYTES, its route's own limit).
 */
export const DASHBOARD_FORM_BODY_LIMIT_BYTES = 16 * 1024;

const ERROR_MESSAGES: Record<number, string> = {
  403: 'This page is out of date or did not come from this site. Reload the page and try again.',
  404: 'There is nothing here, or it belongs to another account.',
  413: 'What you sent is larger than this form takes. A long list of monitors is imported through the API (POST /v1/monitors/import).',
  422: 'This link is not one the dashboard made (a page link may be damaged). Start again from the first page.',
  429: 'Too many requests; wait a moment and try again.',
};

function renderError(request: FastifyRequest, reply: FastifyReply, status: number, detail?: string) {
  const message = detail ?? ERROR_MESSAGES[status] ?? 'Something went wrong on our side. Try again shortly.';
  return reply.code(status).viewAsync('error', {
    title: status === 404 ? 'Not found' : 'Something went wrong',
    user: request.dashboardUser,
    nav: '',
    status,
    message,
    requestId: String(request.id),
  });
}

function statusOf(error: FastifyError): number {
  if (error instanceof ServiceError) return PROBLEMS[error.code].status;
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500 ? status : 500;
}

async function dashboardPlugin(app: App, ctx: AppContext): Promise<void> {
  await app.register(fastifyCookie);
  // Form posts are parsed here only: the API keeps refusing anything but JSON.
  await app.register(fastifyFormbody, { bodyLimit: DASHBOARD_FORM_BODY_LIMIT_BYTES });
  await app.register(fastifyView, {
    engine: { eta: new Eta({ views: VIEWS_DIR, cache: true }) },
    root: VIEWS_DIR,
    production: true,
    defaultContext: { helpers: templateHelpers },
  });
  // Static files are revalidated (ETag) on every use, so a new version is picked up at once.
  await app.register(fastifyStatic, { root: ASSETS_DIR, prefix: '/assets/', index: false, maxAge: 0 });
  await app.register(fastifyStatic, {
    root: HTMX_DIR,
    prefix: '/assets/vendor/',
    decorateReply: false,
    index: false,
    maxAge: 0,
    preCompressed: true,
    allowedPath: (pathName) => pathName === `/${HTMX_FILE}`,
  });

  app.addHook('onSend', async (_request, reply) => addSecurityHeaders(reply));
  app.addHook('onRequest', sessionHook(ctx));
  app.addHook('preHandler', async (request, reply) => {
    const refusal = csrfRefusal(ctx, request);
    if (!refusal) return;
    // A hook stops the request only by sending: rendering alone would let the route run.
    if (request.routeOptions.config.dashboard === 'public') {
      // The sign-in form gets a fresh token: the person can simply submit it again.
      return reply.send(
        await renderSignIn(request, reply, 403, { error: `${refusal} Please sign in again.` }),
      );
    }
    if (isHtmx(request)) return reply.code(403).type('text/plain; charset=utf-8').send(ERROR_MESSAGES[403]);
    return reply.send(await renderError(request, reply, 403, `${refusal} Reload the page and try again.`));
  });
  // After the CSRF check: a forged request learns nothing of its fields.
  app.addHook('preHandler', async (request, reply) => {
    const config = request.routeOptions.config;
    const field = fieldWithNul(request.body, config.nulReportedByRoute) ?? fieldWithNul(request.query);
    if (field === undefined) return;
    const message = nulMessage(field);
    if (config.dashboard === 'public')
      return reply.send(await renderSignIn(request, reply, 422, { error: message }));
    // htmx swaps a 422 into the form (its panel with the errors); a 400 it shows in the flash message.
    if (isHtmx(request)) return reply.code(400).type('text/plain; charset=utf-8').send(message);
    return reply.send(await renderError(request, reply, 422, message));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = statusOf(error);
    if (status >= 500) request.log.error({ err: error }, 'dashboard request failed');
    // htmx shows its own short message for errors; it does not swap the page.
    if (isHtmx(request)) {
      return reply
        .code(status)
        .type('text/plain; charset=utf-8')
        .send(ERROR_MESSAGES[status] ?? '');
    }
    return renderError(request, reply, status);
  });
  app.setNotFoundHandler((request, reply) => renderError(request, reply, 404));

  signInRoutes(app, ctx);
  keyRoutes(app, ctx);
  usageRoutes(app, ctx);
  screeningRoutes(app, ctx);
  decisionRoutes(app, ctx);
  monitorRoutes(app, ctx);
  monitorImportRoutes(app, ctx);
  alertRoutes(app, ctx);
  webhookRoutes(app, ctx);
  auditRoutes(app, ctx);
}

/**
 * Mounts the customer dashboard under /dashboard (hidden from the OpenAPI document, with its own
 * HTML error pages), and sends `/` there when nothing else serves it.
 */
export async function registerDashboard(app: App, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => dashboardPlugin(scope as App, ctx), { prefix: DASHBOARD_PREFIX });
  if (!app.hasRoute({ method: 'GET', url: '/' })) {
    app.get('/', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) =>
      reply.redirect(DASHBOARD_PREFIX, 302),
    );
  }
}
