import { Type } from 'typebox';
import { EMAIL_MAX_LENGTH_CHARS } from '../../../accounts/users.js';
import type { App, AppContext } from '../../context.js';
import { changeActor } from '../../plugins/audit-trail.js';
import {
  ADMIN_AUTH_PROBLEMS,
  BODY_PROBLEMS,
  CreatedDashboardUserSchema,
  DashboardUserSchema,
  json,
  problemResponses,
} from '../../schemas.js';

const security = [{ adminToken: [] }];
const AccountParams = Type.Object({ id: Type.String({ description: 'Account id' }) });
const UserParams = Type.Object({ id: Type.String({ description: 'User id' }) });

export function adminUserRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/accounts/:id/users',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary:
          'Create a dashboard user of an account (a generated password is shown only in this response)',
        security,
        params: AccountParams,
        body: Type.Object(
          {
            email: Type.String({ maxLength: EMAIL_MAX_LENGTH_CHARS, description: 'The sign-in name' }),
            password: Type.Optional(
              Type.String({
                description: 'At least 12 characters; without it a password is generated and returned once',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: json(CreatedDashboardUserSchema, 'The user (with the generated password, if any)'),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, ...BODY_PROBLEMS, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      return reply
        .code(201)
        .send(await ctx.users.create(changeActor(request), request.params.id, email, password));
    },
  );

  app.get(
    '/admin/v1/accounts/:id/users',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: "List an account's dashboard users",
        security,
        params: AccountParams,
        response: {
          200: json(
            Type.Object({ data: Type.Array(DashboardUserSchema) }, { additionalProperties: false }),
            'The users',
          ),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request) => ({ data: await ctx.users.list(request.params.id) }),
  );

  app.delete(
    '/admin/v1/users/:id',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Delete a dashboard user; their sessions end at once',
        security,
        params: UserParams,
        response: {
          204: { description: 'Deleted', type: 'null' },
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      await ctx.users.delete(changeActor(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
