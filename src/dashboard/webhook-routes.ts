import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PLANS } from '../accounts/plans.js';
import type { App, AppContext } from '../http/context.js';
import {
  WEBHOOK_EVENTS,
  WEBHOOK_URL_MAX_CHARS,
  WEBHOOKS_PER_ACCOUNT_MAX,
} from '../webhooks/webhook-policy.js';
import type { CreatedWebhook } from '../webhooks/webhook-service.js';
import { formRefusal } from './form-errors.js';
import { formField, formFields, isHtmx } from './session-guard.js';

const config = { dashboard: 'signed-in' as const };
const WebhookParams = Type.Object({ id: Type.String() });

interface WebhooksView {
  created?: CreatedWebhook;
  notice?: string;
  error?: string;
  fieldErrors?: Record<string, string>;
  url?: string;
  events?: string[];
}

async function renderWebhooks(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: WebhooksView,
) {
  const user = request.dashboardUser!;
  const allowed = PLANS[user.plan].webhooks;
  const webhooks = allowed ? await ctx.webhooks.list(user.accountId) : [];
  const data = {
    title: 'Webhooks',
    nav: 'webhooks',
    user,
    allowed,
    webhooks,
    knownEvents: WEBHOOK_EVENTS,
    maxWebhooks: WEBHOOKS_PER_ACCOUNT_MAX,
    urlMaxChars: WEBHOOK_URL_MAX_CHARS,
    url: '',
    events: ['screening.complete'],
    fieldErrors: {},
    ...view,
  };
  // htmx replaces the webhooks panel only; a plain form post gets the whole page.
  return reply.code(status).viewAsync(isHtmx(request) ? 'partials/webhooks-panel' : 'webhooks', data);
}

function urlProblem(url: string): string | undefined {
  if (url.length === 0) return 'Enter the URL of your endpoint.';
  if (url.length > WEBHOOK_URL_MAX_CHARS)
    return `The URL must be at most ${WEBHOOK_URL_MAX_CHARS} characters long.`;
  return undefined;
}

export function webhookRoutes(app: App, ctx: AppContext): void {
  app.get('/webhooks', { config, schema: { hide: true } }, async (request, reply) =>
    renderWebhooks(ctx, request, reply, 200, {}),
  );

  // Registration goes through the same service call as POST /v1/webhooks: plan, URL, SSRF and
  // limit checks included; its refusals are shown on the form.
  app.post('/webhooks', { config, schema: { hide: true } }, async (request, reply) => {
    const user = request.dashboardUser!;
    const url = formField(request, 'url').trim();
    const events = formFields(request, 'events');
    const fieldErrors: Record<string, string> = {};
    const urlError = urlProblem(url);
    if (urlError) fieldErrors.url = urlError;
    if (events.length === 0) fieldErrors.events = 'Choose at least one event.';
    if (Object.keys(fieldErrors).length > 0) {
      return renderWebhooks(ctx, request, reply, 422, { fieldErrors, url, events });
    }
    try {
      const created = await ctx.webhooks.register(user, { url, events });
      return renderWebhooks(ctx, request, reply, 201, { created });
    } catch (error) {
      const refusal = formRefusal(error, (pointer) =>
        pointer === '/url'
          ? { field: 'url', label: 'The URL' }
          : pointer.startsWith('/events')
            ? { field: 'events', label: 'The events' }
            : undefined,
      );
      return renderWebhooks(ctx, request, reply, refusal.status, {
        error: refusal.error,
        fieldErrors: refusal.fields,
        url,
        events,
      });
    }
  });

  app.get(
    '/webhooks/:id',
    { config, schema: { hide: true, params: WebhookParams } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      const { webhook, attempts } = await ctx.webhooks.history(user.accountId, request.params.id);
      return reply.viewAsync('webhook', {
        title: 'Webhook deliveries',
        nav: 'webhooks',
        user,
        webhook,
        attempts,
      });
    },
  );

  // Without JavaScript the row's button posts without `confirm`, and gets a confirmation page
  // first; with it, the confirmation dialog sends `confirm=yes` directly.
  app.post(
    '/webhooks/:id/delete',
    { config, schema: { hide: true, params: WebhookParams } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      if (formField(request, 'confirm') !== 'yes') {
        const webhook = await ctx.webhooks.get(user.accountId, request.params.id);
        return reply.viewAsync('webhook-delete', { title: 'Delete webhook', nav: 'webhooks', user, webhook });
      }
      const deleted = await ctx.webhooks.delete(user.accountId, request.params.id);
      return renderWebhooks(ctx, request, reply, 200, {
        notice: `The webhook to ${deleted.url} is deleted: it receives no more events, and its pending deliveries are cancelled.`,
      });
    },
  );
}
