import { Type } from 'typebox';
import type { App, AppContext } from '../../context.js';
import { changeActor } from '../../plugins/audit-trail.js';
import {
  ADMIN_AUTH_PROBLEMS,
  ApiKeySchema,
  BODY_PROBLEMS,
  CreatedApiKeySchema,
  json,
  KeyIdParams,
  KeyNameSchema,
  problemResponses,
} from '../../schemas.js';

const security = [{ adminToken: [] }];
const AccountParams = Type.Object({ id: Type.String({ description: 'Account id' }) });

export function adminKeyRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/accounts/:id/keys',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Create an API key for an account (shown only in this response)',
        security,
        params: AccountParams,
        body: Type.Object({ name: Type.Optional(KeyNameSchema) }, { additionalProperties: false }),
        response: {
          201: json(CreatedApiKeySchema, 'The new key'),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, ...BODY_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      const name = request.body?.name?.trim() ?? 'default';
      return reply
        .code(201)
        .send(await ctx.accounts.createKey(changeActor(request), request.params.id, name));
    },
  );

  app.get(
    '/admin/v1/accounts/:id/keys',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: "List an account's API keys",
        security,
        params: AccountParams,
        response: {
          200: json(
            Type.Object({ data: Type.Array(ApiKeySchema) }, { additionalProperties: false }),
            'The keys',
          ),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request) => ({ data: await ctx.accounts.listKeys(request.params.id) }),
  );

  app.delete(
    '/admin/v1/keys/:id',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Revoke any API key',
        security,
        params: KeyIdParams,
        response: {
          204: { description: 'Revoked', type: 'null' },
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      await ctx.accounts.revokeKey(changeActor(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
