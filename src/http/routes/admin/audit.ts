import { Type } from 'typebox';
import { verifyAuditChains } from '../../../audit/audit-verify.js';
import type { App, AppContext } from '../../context.js';
import { ADMIN_AUTH_PROBLEMS, json, problemResponses } from '../../schemas.js';

const security = [{ adminToken: [] }];

const VerificationSchema = Type.Object(
  {
    ok: Type.Boolean(),
    chains_checked: Type.Integer(),
    rows_checked: Type.Integer(),
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
  },
  { $id: 'AuditVerification', additionalProperties: false },
);

export function adminAuditRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/audit/verify',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Verify the hash chains of the audit log and name the first broken row of each',
        security,
        querystring: Type.Object(
          { account: Type.Optional(Type.String({ format: 'uuid' })) },
          { additionalProperties: false },
        ),
        response: {
          200: json(VerificationSchema, 'The result (ok false when any chain is broken)'),
          ...problemResponses(...ADMIN_AUTH_PROBLEMS, 422),
        },
      },
    },
    async (request) => {
      // Key uses are evidence of requests for accounts without a chain: written first, like the rows.
      await Promise.all([ctx.audit.flush(), ctx.lastUsed.flush()]);
      return verifyAuditChains(ctx.db, request.query.account);
    },
  );
}
