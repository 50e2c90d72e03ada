import { Type } from 'typebox';
import type { App, AppContext } from '../../context.js';
import { changeActor } from '../../plugins/audit-trail.js';
import {
  AccountSchema,
  ADMIN_AUTH_PROBLEMS,
  BODY_PROBLEMS,
  CreatedApiKeySchema,
  json,
  PlanIdSchema,
  problemResponses,
} from '../../schemas.js';

const security = [{ adminToken: [] }];
const AccountParams = Type.Object({ id: Type.String({ description: 'Account id' }) });
const RateLimitOverride = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
  description: 'Requests per minute per key; null restores the default (100)',
});

export function adminAccountRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/accounts',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Create an account with its first API key',
        security,
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }), plan: PlanIdSchema },
          { additionalProperties: false },
        ),
        response: {
          201: json(
            Type.Object(
              { account: AccountSchema, key: CreatedApiKeySchema },
              { additionalProperties: false },
            ),
            'The account and its first key (shown only here)',
          ),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, ...BODY_PROBLEMS),
        },
      },
    },
    async (request, reply) => {
      const created = await ctx.accounts.createAccount(
        changeActor(request),
        request.body.name.trim(),
        request.body.plan,
      );
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/admin/v1/accounts',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'List accounts',
        security,
        response: {
          200: json(
            Type.Object({ data: Type.Array(AccountSchema) }, { additionalProperties: false }),
            'Accounts',
          ),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS),
        },
      },
    },
    async () => ({ data: await ctx.accounts.listAccounts() }),
  );

  app.get(
    '/admin/v1/accounts/:id',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Get an account',
        security,
        params: AccountParams,
        response: {
          200: json(AccountSchema, 'The account'),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request) => ctx.accounts.getAccount(request.params.id),
  );

  app.patch(
    '/admin/v1/accounts/:id',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Change plan, status (suspend/resume) or rate-limit override',
        security,
        params: AccountParams,
        body: Type.Object(
          {
            plan: Type.Optional(PlanIdSchema),
            status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])),
            rate_limit_per_minute: Type.Optional(RateLimitOverride),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: {
          200: json(AccountSchema, 'The changed account'),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, ...BODY_PROBLEMS, 404),
        },
      },
    },
    async (request) => ctx.accounts.updateAccount(changeActor(request), request.params.id, request.body),
  );
}
