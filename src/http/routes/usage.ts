import { Type } from 'typebox';
import type { App, AppContext } from '../context.js';
import { DateTime, json, KEY_AUTH_PROBLEMS, PlanIdSchema, problemResponses } from '../schemas.js';

const UsageSchema = Type.Object(
  {
    tier: PlanIdSchema,
    monthly_limit: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited (Enterprise)' }),
    current_month: Type.Object(
      {
        count: Type.Integer({ description: 'Screenings of the account this calendar month (UTC)' }),
        remaining: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' }),
        reset_date: {
          ...DateTime,
          description: 'First instant of the next month (UTC), when the count resets',
        },
        key_count: Type.Integer({ description: 'Screenings made with the key of this request this month' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Usage', additionalProperties: false },
);

export function usageRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/usage',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['usage'],
        summary: "The account's plan and screenings this month",
        security: [{ apiKey: [] }],
        response: {
          200: json(UsageSchema, 'Usage of the current month'),
          ...problemResponses(...KEY_AUTH_PROBLEMS),
        },
      },
    },
    async (request) => {
      const key = request.apiKey!;
      return ctx.usage.usage({ accountId: key.accountId, keyId: key.keyId, plan: key.plan });
    },
  );
}
