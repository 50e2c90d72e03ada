import { Type } from 'typebox';
import { KEYS_PAGE_DEFAULT, KEYS_PAGE_MAX } from '../../accounts/api-keys.js';
import type { App, AppContext } from '../context.js';
import { changeActor } from '../plugins/audit-trail.js';
import {
  ApiKeySchema,
  BODY_PROBLEMS,
  CreatedApiKeySchema,
  json,
  KEY_AUTH_PROBLEMS,
  KeyIdParams,
  KeyNameSchema,
  problemResponses,
} from '../schemas.js';

const security = [{ apiKey: [] }];

export function keyRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/keys',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['keys'],
        summary: 'Create an API key for your account (the key is shown only in this response)',
        security,
        body: Type.Object({ name: KeyNameSchema }, { additionalProperties: false }),
        response: {
          201: json(CreatedApiKeySchema, 'The new key'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS),
        },
      },
    },
    async (request, reply) => {
      const key = await ctx.accounts.createKey(
        changeActor(request),
        request.apiKey!.accountId,
        request.body.name.trim(),
      );
      return reply.code(201).send(key);
    },
  );

  app.get(
    '/v1/keys',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['keys'],
        summary: "List your account's API keys (never the keys themselves), oldest first, a page at a time",
        security,
        querystring: Type.Object(
          {
            cursor: Type.Optional(
              Type.String({ description: 'next_cursor of the previous page', maxLength: 512 }),
            ),
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: KEYS_PAGE_MAX, default: KEYS_PAGE_DEFAULT }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(
            Type.Object(
              {
                data: Type.Array(ApiKeySchema),
                next_cursor: Type.Union([Type.String(), Type.Null()], {
                  description: 'Pass as `cursor` for the next page; null on the last',
                }),
              },
              { additionalProperties: false },
            ),
            'A page of keys',
          ),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 422),
        },
      },
    },
    async (request) => ctx.accounts.listKeyPage(request.apiKey!.accountId, request.query),
  );

  app.delete(
    '/v1/keys/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['keys'],
        summary: 'Revoke an API key of your account (a key may revoke itself); refused everywhere within 1 s',
        security,
        params: KeyIdParams,
        response: {
          204: { description: 'Revoked', type: 'null' },
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      await ctx.accounts.revokeKey(changeActor(request), request.params.id, request.apiKey!.accountId);
      return reply.code(204).send(null);
    },
  );
}
