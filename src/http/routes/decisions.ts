import { Type } from 'typebox';
import {
  DECISION_NOTE_MAX_CHARS,
  DECISIONS_PAGE_DEFAULT,
  DECISIONS_PAGE_MAX,
} from '../../screening/decisions/decision-service.js';
import { REFERENCE_MAX_CHARS } from '../../screening/screening-policy.js';
import type { App, AppContext } from '../context.js';
import { auditActor } from '../plugins/audit-trail.js';
import {
  BODY_PROBLEMS,
  DateTime,
  DecidedBySchema,
  DecisionValueSchema,
  json,
  KEY_AUTH_PROBLEMS,
  problemResponses,
  Uuid,
} from '../schemas.js';

const security = [{ apiKey: [] }];
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const DecisionSchema = Type.Object(
  {
    id: Uuid,
    decision: DecisionValueSchema,
    note: Type.String(),
    flag_id: Type.String({ description: 'The listed record decided on (the flag id)' }),
    source: Type.String(),
    list: Type.String(),
    listed_name: Nullable(Type.String()),
    record_hash: Type.String({
      description:
        "The record's hash when it was decided on: the decision applies while the record is unchanged",
    }),
    reference: Nullable(Type.String({ description: 'The subject, when the screening gave a reference' })),
    entity: Type.String({ description: 'The screened name of the subject' }),
    screening_id: { ...Uuid, description: 'The screening whose flag was decided on' },
    decided_by: DecidedBySchema,
    decided_at: DateTime,
  },
  { $id: 'Decision', additionalProperties: false },
);

const DecisionRequest = Type.Object(
  {
    decision: DecisionValueSchema,
    note: Type.String({
      minLength: 1,
      maxLength: DECISION_NOTE_MAX_CHARS * 4,
      description: `Why, at most ${DECISION_NOTE_MAX_CHARS} characters; required`,
    }),
  },
  { additionalProperties: false },
);

export function decisionRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/screen/:id/flags/:flag_id/decision',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['decisions'],
        summary:
          'Decide on a flag: later screenings of the same subject report the decision, and a false positive no longer counts toward the risk',
        security,
        params: Type.Object({
          id: Type.String({ description: 'Screening id' }),
          flag_id: Type.String({ description: 'The flag id, e.g. ofac_sdn:36' }),
        }),
        body: DecisionRequest,
        response: {
          201: json(DecisionSchema, 'The decision'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      const decision = await ctx.decisions.decide(
        auditActor(request),
        request.params.id,
        request.params.flag_id,
        request.body,
      );
      return reply.code(201).send(decision);
    },
  );

  app.get(
    '/v1/decisions',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['decisions'],
        summary: "Your account's standing decisions, newest first",
        security,
        querystring: Type.Object(
          {
            reference: Type.Optional(Type.String({ maxLength: REFERENCE_MAX_CHARS * 4 })),
            source: Type.Optional(Type.String({ maxLength: 100 })),
            decision: Type.Optional(DecisionValueSchema),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: DECISIONS_PAGE_MAX, default: DECISIONS_PAGE_DEFAULT }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(
            Type.Object(
              {
                data: Type.Array(DecisionSchema),
                next_cursor: Nullable(
                  Type.String({ description: 'Pass as `cursor` for the next page; null on the last' }),
                ),
              },
              { additionalProperties: false },
            ),
            'The decisions',
          ),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 422),
        },
      },
    },
    async (request) => {
      const { reference, source, decision, cursor, limit } = request.query;
      return ctx.decisions.list(request.apiKey!.accountId, {
        reference: reference?.trim(),
        source,
        decision,
        cursor,
        limit,
      });
    },
  );

  app.delete(
    '/v1/decisions/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['decisions'],
        summary: 'Withdraw a decision: later screenings report the flag undecided (the audit log keeps it)',
        security,
        params: Type.Object({ id: Type.String({ description: 'Decision id' }) }),
        response: {
          204: { description: 'Withdrawn', type: 'null' },
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request, reply) => {
      await ctx.decisions.withdraw(auditActor(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
