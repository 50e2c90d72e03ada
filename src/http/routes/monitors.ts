import { type TSchema, Type } from 'typebox';
import {
  ALERT_NOTE_MAX_CHARS,
  MONITOR_IMPORT_BODY_LIMIT_BYTES,
  MONITOR_IMPORT_ITEMS,
  MONITOR_IMPORT_MAX,
  MONITORING_PAGE_DEFAULT,
  MONITORING_PAGE_MAX,
} from '../../screening/monitoring/monitoring-policy.js';
import { REFERENCE_MAX_CHARS } from '../../screening/screening-policy.js';
import type { App, AppContext } from '../context.js';
import { acceptPartyListBodies, partyListOf } from '../party-list-body.js';
import { auditActor } from '../plugins/audit-trail.js';
import {
  ActorSchema,
  BODY_PROBLEMS,
  DateTime,
  json,
  KEY_AUTH_PROBLEMS,
  problemResponses,
  SCREENING_FAILED_RESPONSE,
  Uuid,
} from '../schemas.js';
import { BatchItem, CsvBody } from './batch.js';
import { FlagSchema, ScreeningResultSchema, ScreenRequestProperties } from './screen.js';

const security = [{ apiKey: [] }];

const { reference: _reference, ...MonitorRequestFields } = ScreenRequestProperties;

// In an answer the request's enumerations are plain strings: they were checked on the way in.
const MonitorFields = {
  id: Uuid,
  ...MonitorRequestFields,
  type: Type.Optional(Type.String({ description: 'What the query names (see POST /v1/screen)' })),
  identifiers: Type.Optional(
    Type.Array(
      Type.Object(
        { type: Type.String(), value: Type.String(), country: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
    ),
  ),
  reference: Type.Union([Type.String(), Type.Null()], { description: 'Your own id of the party' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('pending'), Type.Literal('failed')], {
    description:
      'active: watched from its first screening on; pending: an imported monitor whose first screening is due; failed: that screening could not be done (first_screening_error), and the monitor is not watched',
  }),
  first_screening_id: Type.Union([Uuid, Type.Null()], {
    description: 'Its first screening (GET /v1/screen/{id})',
  }),
  first_screening_error: Type.Union([Type.String(), Type.Null()], {
    description: 'The problem type its first screening failed with (quota-exceeded, ...)',
  }),
  created_at: DateTime,
};

const MonitorSchema = Type.Object(MonitorFields, { $id: 'Monitor', additionalProperties: false });

const CreatedMonitorSchema = Type.Object(
  {
    ...MonitorFields,
    screening: { ...ScreeningResultSchema, description: "The monitor's first screening" },
  },
  { additionalProperties: false },
);

const AlertSchema = Type.Object(
  {
    id: Uuid,
    monitor_id: Uuid,
    reference: Type.Union([Type.String(), Type.Null()]),
    screening_id: { ...Uuid, description: 'The screening that raised the alert (GET /v1/screen/{id})' },
    flags: Type.Array(FlagSchema, { description: 'The record the alert is about' }),
    reason: Type.Union([
      Type.Literal('new_match'),
      Type.Literal('record_changed'),
      Type.Literal('record_removed'),
    ]),
    list: Type.String({ description: 'The list that changed' }),
    list_version: Type.String({ description: 'Its version that raised the alert' }),
    created_at: DateTime,
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    note: Type.Union([Type.String(), Type.Null()], { description: 'Why it was closed' }),
    closed_at: Type.Union([DateTime, Type.Null()]),
    closed_by: Type.Union([ActorSchema, Type.Null()], {
      description: 'Who closed it: the API key or the dashboard user',
    }),
  },
  { $id: 'Alert', additionalProperties: false },
);

const pageOf = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      data: Type.Array(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` for the next page; null on the last',
      }),
    },
    { additionalProperties: false },
  );

const Cursor = Type.Optional(Type.String({ maxLength: 200 }));
const Limit = Type.Optional(
  Type.Integer({ minimum: 1, maximum: MONITORING_PAGE_MAX, default: MONITORING_PAGE_DEFAULT }),
);

const ImportRequest = Type.Object(
  {
    items: Type.Array(BatchItem, { minItems: 1, maxItems: MONITOR_IMPORT_MAX }),
    options: ScreenRequestProperties.options,
  },
  { additionalProperties: false },
);

const ImportSchema = Type.Object(
  {
    id: Uuid,
    status: Type.Union([Type.Literal('processing'), Type.Literal('completed')]),
    total: Type.Integer({ description: 'Parties imported' }),
    screened: Type.Integer({ description: 'Monitors whose first screening is done: watched' }),
    failed: Type.Integer({ description: 'Monitors whose first screening could not be done: not watched' }),
    created_at: DateTime,
    completed_at: Type.Union([DateTime, Type.Null()]),
  },
  { $id: 'MonitorImport', additionalProperties: false },
);

/** Ongoing monitoring: monitors (create, import, list, get, delete) and their alerts (list, close). */
export function monitorRoutes(app: App, ctx: AppContext): void {
  app.register(async (scope: App) => {
    acceptPartyListBodies(scope, MONITOR_IMPORT_BODY_LIMIT_BYTES, MONITOR_IMPORT_ITEMS);
    importRoute(scope, ctx);
  });
  app.get(
    '/v1/monitors/imports/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['monitoring'],
        summary: 'How far an import of monitors went',
        security,
        params: Type.Object({ id: Type.String({ description: 'Import id' }) }),
        response: { 200: json(ImportSchema, 'The import'), ...problemResponses(...KEY_AUTH_PROBLEMS, 404) },
      },
    },
    async (request) => ctx.monitors.getImport(request.apiKey!.accountId, request.params.id),
  );

  app.post(
    '/v1/monitors',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['monitoring'],
        summary:
          'Keep a party screened: screens it now (counted) and raises an alert whenever a list change touches it',
        security,
        body: Type.Object(ScreenRequestProperties, { additionalProperties: false }),
        response: {
          201: json(CreatedMonitorSchema, 'The monitor, with its first screening'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS, 402),
          500: SCREENING_FAILED_RESPONSE,
        },
      },
    },
    async (request, reply) => {
      const { accountId, keyId, plan } = request.apiKey!;
      return reply
        .code(201)
        .send(await ctx.monitors.create({ accountId, keyId, plan }, request.body, auditActor(request)));
    },
  );

  app.get(
    '/v1/monitors',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['monitoring'],
        summary: "Your account's monitors, newest first",
        security,
        querystring: Type.Object(
          {
            reference: Type.Optional(Type.String({ maxLength: REFERENCE_MAX_CHARS * 4 })),
            cursor: Cursor,
            limit: Limit,
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(pageOf(MonitorSchema), 'The monitors'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 422),
        },
      },
    },
    async (request) => {
      const { reference, cursor, limit } = request.query;
      return ctx.monitors.list(request.apiKey!.accountId, { reference: reference?.trim(), cursor, limit });
    },
  );

  app.get(
    '/v1/monitors/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['monitoring'],
        summary: 'One monitor',
        security,
        params: Type.Object({ id: Type.String({ description: 'Monitor id' }) }),
        response: { 200: json(MonitorSchema, 'The monitor'), ...problemResponses(...KEY_AUTH_PROBLEMS, 404) },
      },
    },
    async (request) => ctx.monitors.get(request.apiKey!.accountId, request.params.id),
  );

  app.delete(
    '/v1/monitors/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['monitoring'],
        summary: 'Stop monitoring a party (its alerts stay)',
        security,
        params: Type.Object({ id: Type.String({ description: 'Monitor id' }) }),
        response: {
          204: { description: 'Stopped', type: 'null' },
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      await ctx.monitors.delete(auditActor(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/alerts',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['monitoring'],
        summary: "Your account's alerts, newest first",
        security,
        querystring: Type.Object(
          {
            status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
            monitor_id: Type.Optional(Type.String({ maxLength: 100 })),
            cursor: Cursor,
            limit: Limit,
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(pageOf(AlertSchema), 'The alerts'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 422),
        },
      },
    },
    async (request) => {
      const { status, monitor_id: monitorId, cursor, limit } = request.query;
      return ctx.monitors.alerts(request.apiKey!.accountId, { status, monitorId, cursor, limit });
    },
  );

  app.post(
    '/v1/alerts/:id/close',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['monitoring'],
        summary: 'Close an alert with a note',
        security,
        params: Type.Object({ id: Type.String({ description: 'Alert id' }) }),
        body: Type.Object(
          {
            note: Type.String({
              minLength: 1,
              maxLength: ALERT_NOTE_MAX_CHARS,
              description: `What was found, at most ${ALERT_NOTE_MAX_CHARS} characters; required`,
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(AlertSchema, 'The alert, closed'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS, 404),
        },
      },
    },
    async (request) => ctx.monitors.closeAlert(auditActor(request), request.params.id, request.body.note),
  );
}

function importRoute(app: App, ctx: AppContext): void {
  app.post(
    '/v1/monitors/import',
    {
      config: { auth: 'key' },
      bodyLimit: MONITOR_IMPORT_BODY_LIMIT_BYTES,
      // The plan, a full account and a month with no screening left refuse before a body of up to
      // 32 MB is read.
      onRequest: async (request) => ctx.monitors.admitImport(request.apiKey!),
      schema: {
        tags: ['monitoring'],
        summary: `Monitor up to ${MONITOR_IMPORT_MAX} parties at once; their first screenings (counted) are done in the background`,
        security,
        body: {
          content: {
            'application/json': { schema: ImportRequest },
            'text/csv': { schema: CsvBody },
          },
        },
        response: {
          202: json(ImportSchema, 'Imported; follow the Location header for the first screenings'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS, 402),
        },
      },
    },
    async (request, reply) => {
      const submission = await partyListOf(request.body, ImportRequest, MONITOR_IMPORT_ITEMS);
      const imported = await ctx.monitors.import(request.apiKey!, submission, auditActor(request));
      return reply.code(202).header('location', `/v1/monitors/imports/${imported.id}`).send(imported);
    },
  );
}
