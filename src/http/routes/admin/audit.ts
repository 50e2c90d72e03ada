import { Type } from 'typebox';
import { verifyAuditChains } from '../../../audit/audit-verify.js';
import type { App, AppContext } from '../../context.js';
import { ADMIN_AUTH_PROBLEMS, BODY_PROBLEMS, DateTime, json, problemResponses, Uuid } from '../../schemas.js';

const security = [{ adminToken: [] }];

/**
 * Room for the latest checkpoint of about 49,000 chains (some 170 bytes each); a log with more
 * accounts is verified account by account (`--account`).
 */
export const VERIFY_BODY_LIMIT_BYTES = 8 * 1_048_576;

const VerifyRequestSchema = Type.Object(
  {
    checkpoints: Type.Optional(
      Type.Array(
        Type.Object(
          {
            chain_id: Uuid,
            seq: Type.Integer({ minimum: 0 }),
            hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
            at: DateTime,
          },
          { additionalProperties: false },
        ),
        {
          description:
            'The latest signed checkpoint of each chain, signatures already checked (`screening audit verify --checkpoints FILE` reads and checks them)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const VerificationSchema = Type.Object(
  {
    ok: Type.Boolean(),
    chains_checked: Type.Integer(),
    rows_checked: Type.Integer(),
    checkpoints_checked: Type.Optional(
      Type.Integer({ description: 'Chains held to a checkpoint (only when checkpoints were sent)' }),
    ),
    breaks: Type.Array(
      Type.Object(
        {
          chain_id: Type.String({
            description: 'The account id (or the nil UUID for requests without an account)',
          }),
          row_id: Type.Union([Type.String(), Type.Null()]),
          seq: Type.Integer(),
          reason: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    records_checked: Type.Integer({
      description: 'Decisions, alerts, monitors, accounts, API keys and dashboard users held to the log',
    }),
    screenings_checked: Type.Integer({
      description:
        "Stored screenings held to their request's audit row (those of the last minute are not yet: their rows may still be buffered)",
    }),
    records: Type.Array(
      Type.Object(
        {
          chain_id: Type.String({ description: 'The account id' }),
          table: Type.Union([
            Type.Literal('decisions'),
            Type.Literal('alerts'),
            Type.Literal('monitors'),
            Type.Literal('accounts'),
            Type.Literal('api_keys'),
            Type.Literal('users'),
            Type.Literal('screenings'),
          ]),
          record_id: Type.String(),
          reason: Type.String({
            description: "Edited, deleted, or not in the audit log (a screening: its request's row is not)",
          }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          "The rows that do not match the latest change the log chains of them, and the screenings whose request's row the log does not hold (at most 1,000 per table)",
      },
    ),
  },
  { $id: 'AuditVerification', additionalProperties: false },
);

export function adminAuditRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/audit/verify',
    {
      config: { auth: 'admin' },
      bodyLimit: VERIFY_BODY_LIMIT_BYTES,
      // The body is optional (a plain verification sends none): absent, it is the empty request.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['admin'],
        summary:
          "Verify the hash chains of the audit log (against signed checkpoints when sent) and name the first broken row of each; hold the decisions, alerts, monitors, accounts, API keys and dashboard users to the changes the log chains of them, and the stored screenings to their requests' rows",
        security,
        querystring: Type.Object(
          { account: Type.Optional(Type.String({ format: 'uuid' })) },
          { additionalProperties: false },
        ),
        body: VerifyRequestSchema,
        response: {
          200: json(
            VerificationSchema,
            'The result (ok false when any chain is broken or any record does not match the log)',
          ),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, ...BODY_PROBLEMS),
        },
      },
    },
    async (request) => {
      // Key uses are evidence of requests for accounts without a chain: written first, like the rows.
      await Promise.all([ctx.audit.flush(), ctx.lastUsed.flush()]);
      return verifyAuditChains(ctx.db, ctx.clock.now(), request.query.account, request.body.checkpoints);
    },
  );
}
