import { Type } from 'typebox';
import { AUDIT_PAGE_MAX, listAuditRecords } from '../../audit/audit-query.js';
import { ServiceError } from '../../errors.js';
import type { App, AppContext } from '../context.js';
import { DateTime, json, KEY_AUTH_PROBLEMS, problemResponses, Uuid } from '../schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const AuditRecordSchema = Type.Object(
  {
    id: Uuid,
    request_id: Type.String(),
    occurred_at: DateTime,
    key_id: Nullable(Uuid),
    key_prefix: Nullable(Type.String()),
    key_last4: Nullable(Type.String()),
    method: Type.String(),
    route: Nullable(Type.String()),
    path: Type.String(),
    status: Nullable(Type.Integer({ description: "The response's status; null on the row of a change" })),
    latency_ms: Nullable(Type.Integer({ minimum: 0 })),
    client_ip: Nullable(Type.String()),
    user_agent: Nullable(Type.String()),
    user_id: Nullable({ ...Uuid, description: 'The dashboard user who made the request; null for API keys' }),
    action: Nullable(
      Type.String({
        description:
          'On the row of a change the request made (decision.created, alert.closed, monitor.deleted, api_key.revoked, user.created, ...); null on the row of the request',
      }),
    ),
    record_id: Nullable(Type.String({ description: 'The decision, alert or monitor changed' })),
    record_hash: Nullable(Type.String({ description: 'SHA-256 of that row as the change left it' })),
  },
  { $id: 'AuditRecord', additionalProperties: false },
);

const AuditQuery = Type.Object(
  {
    from: Type.Optional({ ...DateTime, description: 'Rows at or after this time' }),
    to: Type.Optional({ ...DateTime, description: 'Rows before this time' }),
    status: Type.Optional(
      Type.String({ description: 'A status (404) or a class (4xx)', pattern: '^[1-5]([0-9]{2}|xx)$' }),
    ),
    path: Type.Optional(Type.String({ description: 'Rows whose path starts with this', maxLength: 2048 })),
    cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page', maxLength: 512 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_PAGE_MAX, default: 50 })),
  },
  { additionalProperties: false },
);

/** A date-time the schema accepted but JavaScript cannot represent (a leap second) is a 422. */
function instant(value: string | undefined, pointer: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new ServiceError('validation-failed', 'A time filter is not a valid instant.', [
      { pointer, detail: 'must be an ISO 8601 date-time' },
    ]);
  }
  return date;
}

export function auditRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/audit',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['audit'],
        summary: "Your account's audit log, newest first",
        description:
          'One row per API request of the account (any key), including refused ones, written in the ' +
          'background within a fraction of a second of the response; and one row per change a request made ' +
          '(a decision, an alert, a monitor), written with the change.',
        security: [{ apiKey: [] }],
        querystring: AuditQuery,
        response: {
          200: json(
            Type.Object(
              { data: Type.Array(AuditRecordSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) },
              { additionalProperties: false },
            ),
            'A page of audit rows',
          ),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 422),
        },
      },
    },
    async (request) => {
      // This instance's rows still in the write buffer are written first, so a client sees its own requests.
      await ctx.audit.flush();
      const { from, to, ...rest } = request.query;
      return listAuditRecords(ctx.db, request.apiKey!.accountId, {
        ...rest,
        from: instant(from, '/from'),
        to: instant(to, '/to'),
      });
    },
  );
}
