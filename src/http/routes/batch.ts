import { Type } from 'typebox';
import { batchResultsCsv } from '../../screening/batches/batch-csv.js';
import { BATCH_ITEMS_LIMIT } from '../../screening/batches/batch-input.js';
import {
  BATCH_BODY_LIMIT_BYTES,
  BATCH_ITEMS_MAX,
  BATCH_REFERENCE_MAX_CHARS,
  BATCH_RESULTS_PAGE_MAX,
} from '../../screening/batches/batch-policy.js';
import type { App, AppContext } from '../context.js';
import { acceptPartyListBodies, partyListOf } from '../party-list-body.js';
import {
  BODY_PROBLEMS,
  COMPLETE_DESCRIPTION,
  DateTime,
  json,
  KEY_AUTH_PROBLEMS,
  Nullable,
  problemResponses,
  SourceFailureSchema,
  Uuid,
} from '../schemas.js';
import { ScreenedRequestSchema, ScreenRequestProperties } from './screen.js';

const security = [{ apiKey: [] }];

export const BatchItem = Type.Object(
  {
    ...ScreenRequestProperties,
    reference: Type.Optional(
      Type.String({
        maxLength: BATCH_REFERENCE_MAX_CHARS * 2,
        description: `Your own id, at most ${BATCH_REFERENCE_MAX_CHARS} characters`,
      }),
    ),
  },
  { additionalProperties: false },
);

const BatchRequest = Type.Object(
  {
    items: Type.Array(BatchItem, { minItems: 1, maxItems: BATCH_ITEMS_MAX }),
    options: ScreenRequestProperties.options,
  },
  { additionalProperties: false },
);

export const CsvBody = Type.String({
  description:
    'A header row naming `query` and optionally `type`, `reference`, `date_of_birth`, `countries` (`;`-separated) and `identifiers` (`type:value;type:value`), then one party per row',
});

const BatchStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('cancelled'),
]);

const QueuedBatchSchema = Type.Object(
  { id: Uuid, status: Type.Literal('queued'), total: Type.Integer(), created_at: DateTime },
  { $id: 'QueuedBatch', additionalProperties: false },
);

const BatchResultSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: "The item's position in the request" }),
    reference: Nullable(Type.String()),
    request: Nullable(ScreenedRequestSchema, {
      description:
        "What was asked, as the screening's answer says it: as checked when the batch was queued, then as screened. Null on items queued before requests were recorded",
    }),
    screening_id: Nullable({ ...Uuid, description: 'The stored screening (GET /v1/screen/:id)' }),
    risk_score: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
    risk_level: Nullable(Type.String()),
    flag_count: Nullable(Type.Integer({ minimum: 0 })),
    status: Type.String({ description: 'pending, running, completed, failed or cancelled' }),
    error: Type.Optional(Type.String({ description: 'Why the item failed (problem code and detail)' })),
    complete: Nullable(Type.Boolean({ description: `The screening's complete: ${COMPLETE_DESCRIPTION}` })),
    sources_failed: Nullable(
      Type.Array(SourceFailureSchema, {
        description: "The screening's sources that gave no answer, and why",
      }),
    ),
  },
  { $id: 'BatchResult', additionalProperties: false },
);

const BatchSchema = Type.Object(
  {
    id: Uuid,
    status: BatchStatus,
    total: Type.Integer(),
    completed: Type.Integer(),
    failed: Type.Integer(),
    cancelled: Type.Integer({ description: 'Items cancelled before they started' }),
    created_at: DateTime,
    completed_at: Nullable(DateTime),
    results: Type.Array(BatchResultSchema),
    next_cursor: Nullable(
      Type.String({ description: 'Pass as `cursor` for the next page; null on the last' }),
    ),
  },
  { $id: 'Batch', additionalProperties: false },
);

const BatchIdParams = Type.Object({ id: Type.String({ description: 'Batch id' }) });

export function batchRoutes(app: App, ctx: AppContext): void {
  app.register(async (scope: App) => {
    acceptPartyListBodies(scope, BATCH_BODY_LIMIT_BYTES, BATCH_ITEMS_LIMIT);
    submitRoute(scope, ctx);
  });
  getRoute(app, ctx);
  cancelRoute(app, ctx);
}

function submitRoute(app: App, ctx: AppContext): void {
  app.post(
    '/v1/screen/batch',
    {
      config: { auth: 'key' },
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      // The plan and a month with no screening left refuse before a body of up to 16 MB is read.
      onRequest: async (request) => ctx.batches.admit(request.apiKey!),
      schema: {
        tags: ['screening'],
        summary: `Queue up to ${BATCH_ITEMS_MAX} names for screening (Professional and Enterprise)`,
        security,
        body: {
          content: {
            'application/json': { schema: BatchRequest },
            'text/csv': { schema: CsvBody },
          },
        },
        response: {
          202: json(QueuedBatchSchema, 'Queued; follow the Location header for progress and results'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS, 402),
        },
      },
    },
    async (request, reply) => {
      const submission = await partyListOf(request.body, BatchRequest, BATCH_ITEMS_LIMIT);
      const queued = await ctx.batches.submit(request.apiKey!, submission);
      return reply.code(202).header('location', `/v1/screen/batch/${queued.id}`).send(queued);
    },
  );
}

function getRoute(app: App, ctx: AppContext): void {
  app.get(
    '/v1/screen/batch/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['screening'],
        summary: 'Progress and results of a batch of your account (JSON pages, or all results as CSV)',
        security,
        params: BatchIdParams,
        querystring: Type.Object(
          {
            cursor: Type.Optional(Type.String({ maxLength: 20 })),
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: BATCH_RESULTS_PAGE_MAX, default: BATCH_RESULTS_PAGE_MAX }),
            ),
            format: Type.Optional(
              Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The batch (JSON), or every result as CSV with ?format=csv',
            content: {
              'application/json': { schema: BatchSchema },
              'text/csv': { schema: Type.String() },
            },
          },
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = request.apiKey!;
      const { cursor, limit, format } = request.query;
      if (format === 'csv') {
        const rows = await ctx.batches.allResults(accountId, request.params.id);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="batch-${request.params.id}.csv"`)
          .send(batchResultsCsv(rows));
      }
      return ctx.batches.get(accountId, request.params.id, cursor, limit ?? BATCH_RESULTS_PAGE_MAX);
    },
  );
}

function cancelRoute(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/screen/batch/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['screening'],
        summary: 'Cancel the items of a batch not yet started (items being screened finish)',
        security,
        params: BatchIdParams,
        response: {
          204: { description: 'Cancelled', type: 'null' },
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      await ctx.batches.cancel(request.apiKey!.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
