import { Type } from 'typebox';
import {
  ATTEMPTS_PAGE_DEFAULT,
  ATTEMPTS_PAGE_MAX,
  WEBHOOK_EVENTS,
  WEBHOOK_URL_MAX_CHARS,
  WEBHOOKS_PER_ACCOUNT_MAX,
} from '../../webhooks/webhook-policy.js';
import type { App, AppContext } from '../context.js';
import { BODY_PROBLEMS, DateTime, json, KEY_AUTH_PROBLEMS, problemResponses, Uuid } from '../schemas.js';

const security = [{ apiKey: [] }];
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const EventName = Type.String({ description: `An event: ${WEBHOOK_EVENTS.join(', ')}` });
const WebhookStatus = Type.Union([Type.Literal('active'), Type.Literal('degraded')], {
  description:
    'degraded after 5 failed attempts in a row (it still receives events); active again after a success',
});

const WebhookSchema = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    events: Type.Array(EventName),
    status: WebhookStatus,
    consecutive_failures: Type.Integer({ minimum: 0, description: 'Failed attempts since the last success' }),
    last_delivery_at: Nullable({
      ...DateTime,
      description: 'When the last attempt (of any outcome) was made',
    }),
    created_at: DateTime,
  },
  { $id: 'Webhook', additionalProperties: false },
);

const CreatedWebhookSchema = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    events: Type.Array(EventName),
    status: WebhookStatus,
    created_at: DateTime,
    secret: Type.String({
      description: 'The signing secret (whsec_ and base64). Shown only in this response: store it now.',
    }),
  },
  { $id: 'CreatedWebhook', additionalProperties: false },
);

const AttemptSchema = Type.Object(
  {
    delivery_id: { ...Uuid, description: 'The delivery (its webhook-id header, the same on every retry)' },
    event: Type.String(),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt, up to 6' }),
    attempted_at: DateTime,
    status_code: Nullable(Type.Integer({ description: 'The receiver’s HTTP status; null when none came' })),
    duration_ms: Type.Integer({ minimum: 0 }),
    error: Nullable(Type.String({ description: 'Why the attempt failed; null on success' })),
    next_retry_at: Nullable({ ...DateTime, description: 'When the next attempt is due; null when none is' }),
    delivery_status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('delivered'),
      Type.Literal('failed'),
      Type.Literal('cancelled'),
    ]),
  },
  { $id: 'WebhookAttempt', additionalProperties: false },
);

const WebhookRequest = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: WEBHOOK_URL_MAX_CHARS,
      description: 'An https:// URL without credentials whose host resolves to public addresses only',
    }),
    events: Type.Optional(
      Type.Array(EventName, {
        minItems: 1,
        maxItems: 20,
        description: 'Default: ["screening.complete"]',
      }),
    ),
  },
  { additionalProperties: false },
);

const WebhookIdParams = Type.Object({ id: Type.String({ description: 'Webhook id' }) });

export function webhookRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhooks',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['webhooks'],
        summary: `Register a webhook (Professional and Enterprise; at most ${WEBHOOKS_PER_ACCOUNT_MAX} per account)`,
        security,
        body: WebhookRequest,
        response: {
          201: json(CreatedWebhookSchema, 'The webhook, with its signing secret (shown only here)'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS),
        },
      },
    },
    async (request, reply) => {
      const created = await ctx.webhooks.register(request.apiKey!, request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['webhooks'],
        summary: "Your account's webhooks (never their secrets)",
        security,
        response: {
          200: json(
            Type.Object({ data: Type.Array(WebhookSchema) }, { additionalProperties: false }),
            'The webhooks',
          ),
          ...problemResponses(...KEY_AUTH_PROBLEMS),
        },
      },
    },
    async (request) => ({ data: await ctx.webhooks.list(request.apiKey!.accountId) }),
  );

  app.get(
    '/v1/webhooks/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['webhooks'],
        summary: 'One webhook of your account',
        security,
        params: WebhookIdParams,
        response: {
          200: json(WebhookSchema, 'The webhook'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request) => ctx.webhooks.get(request.apiKey!.accountId, request.params.id),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook; its pending deliveries are cancelled',
        security,
        params: WebhookIdParams,
        response: {
          204: { description: 'Deleted', type: 'null' },
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      await ctx.webhooks.delete(request.apiKey!.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['webhooks'],
        summary: "The webhook's latest delivery attempts, newest first",
        security,
        params: WebhookIdParams,
        querystring: Type.Object(
          {
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: ATTEMPTS_PAGE_MAX, default: ATTEMPTS_PAGE_DEFAULT }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(
            Type.Object({ data: Type.Array(AttemptSchema) }, { additionalProperties: false }),
            'The attempts',
          ),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404, 422),
        },
      },
    },
    async (request) => ({
      data: await ctx.webhooks.attempts(request.apiKey!.accountId, request.params.id, request.query.limit),
    }),
  );
}
