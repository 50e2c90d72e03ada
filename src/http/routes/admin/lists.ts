import { Type } from 'typebox';
import type { App, AppContext } from '../../context.js';
import {
  ADMIN_AUTH_PROBLEMS,
  BODY_PROBLEMS,
  DateTime,
  json,
  ListPublicationProperties,
  ListStateSchema,
  problemResponses,
} from '../../schemas.js';

const security = [{ adminToken: [] }];
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Outcome = Type.Union([
  Type.Literal('accepted'),
  Type.Literal('unchanged'),
  Type.Literal('rejected'),
  Type.Literal('failed'),
]);

const ListStatusSchema = Type.Object(
  {
    id: Type.String({ description: 'Source id, e.g. ofac_sdn' }),
    title: Type.String(),
    state: ListStateSchema,
    version: Nullable(Type.String({ description: 'Content hash (sha256) of the version in service' })),
    format: Nullable(Type.String()),
    ...ListPublicationProperties,
    fetched_at: Nullable(DateTime),
    checked_at: Nullable(DateTime),
    attempted_at: Nullable(DateTime),
    entity_count: Nullable(Type.Integer()),
    last_outcome: Nullable(Outcome),
    last_error: Nullable(Type.String()),
  },
  { $id: 'ListStatus', additionalProperties: false },
);

const RefreshReportSchema = Type.Object(
  {
    outcome: Outcome,
    detail: Type.String(),
    list: Type.Ref('ListStatus'),
  },
  { $id: 'ListRefreshReport', additionalProperties: false },
);

export function adminListRoutes(app: App, ctx: AppContext): void {
  app.addSchema(ListStatusSchema);

  app.get(
    '/admin/v1/lists',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Version, date, entity count and state of every enabled official list',
        security,
        response: {
          200: json(
            Type.Object({ data: Type.Array(Type.Ref('ListStatus')) }, { additionalProperties: false }),
            'Lists',
          ),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS),
        },
      },
    },
    async () => ({ data: await ctx.lists.status() }),
  );

  app.post(
    '/admin/v1/lists/:id/refresh',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Fetch and install a new version of a list now; force accepts one that shrank by over 20%',
        security,
        params: Type.Object({ id: Type.String({ description: 'List id, e.g. un_sc' }) }),
        querystring: Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        body: Type.Optional(
          Type.Union([
            Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
            Type.Null(),
          ]),
        ),
        response: {
          200: json(
            RefreshReportSchema,
            'What the refresh did (a failed or rejected one keeps the previous version)',
          ),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, ...BODY_PROBLEMS, 404, 409),
        },
      },
    },
    async (request) => {
      const force = request.query.force === true || request.body?.force === true;
      const [report] = await ctx.lists.refresh(request.params.id, { force });
      return { outcome: report!.outcome, detail: report!.detail, list: report!.list };
    },
  );
}
