import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ServiceError } from '../errors.js';
import type { App, AppContext } from '../http/context.js';
import { auditActor } from '../http/plugins/audit-trail.js';
import { DECISION_NOTE_MAX_CHARS, DECISION_VALUES } from '../screening/decisions/decision-service.js';
import { REVIEW_QUEUE_DAYS_DEFAULT } from '../screening/decisions/review-queue.js';
import type { DecisionValue } from '../screening/screening-result.js';
import { decisionName, queuedFlagView } from './decision-view.js';
import { formRefusal } from './form-errors.js';
import { formField } from './session-guard.js';

const config = { dashboard: 'signed-in' as const };
const ReviewQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })),
  decided: Type.Optional(Type.String({ maxLength: 40 })),
});
const FlagParams = Type.Object({ id: Type.String(), flag_id: Type.String() });

/** A refused decision, shown on its row of the queue with what was typed. */
interface RowError {
  screeningId: string;
  flagId: string;
  note: string;
  message: string;
}

async function renderReview(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: { days?: number | undefined; notice?: string | undefined; rowError?: RowError },
) {
  const user = request.dashboardUser!;
  const days = view.days ?? REVIEW_QUEUE_DAYS_DEFAULT;
  const queue = await ctx.decisions.queue(user.accountId, days);
  return reply.code(status).viewAsync('review', {
    title: 'Review queue',
    nav: 'review',
    user,
    days,
    rows: queue.flags.map(queuedFlagView),
    more: queue.more,
    notice: view.notice,
    rowError: view.rowError,
    noteMaxChars: DECISION_NOTE_MAX_CHARS,
  });
}

/**
 * The analyst's side of decisions: the queue of flags waiting for one, and the form that takes
 * one (from the queue or from a screening's page), as `POST /v1/screen/{id}/flags/{flag_id}/decision`
 * would, in the name of the signed-in user.
 */
export function decisionRoutes(app: App, ctx: AppContext): void {
  app.get('/review', { config, schema: { hide: true, querystring: ReviewQuery } }, async (request, reply) => {
    const decided = request.query.decided;
    const notice =
      decided && DECISION_VALUES.includes(decided as DecisionValue)
        ? `Recorded as ${decisionName(decided).toLowerCase()}: later screenings of the same party report it.`
        : undefined;
    return renderReview(ctx, request, reply, 200, { days: request.query.days, notice });
  });

  app.post(
    '/screenings/:id/flags/:flag_id/decision',
    { config, schema: { hide: true, params: FlagParams } },
    async (request, reply) => {
      const { id, flag_id: flagId } = request.params;
      const decision = formField(request, 'decision') as DecisionValue;
      const note = formField(request, 'note');
      const fromScreening = formField(request, 'from') === 'screening';
      try {
        if (!DECISION_VALUES.includes(decision)) {
          throw new ServiceError('validation-failed', 'Choose false positive or true match.', [
            { pointer: '/decision', detail: 'must be false positive or true match' },
          ]);
        }
        await ctx.decisions.decide(auditActor(request), id, flagId, {
          decision,
          note,
        });
      } catch (error) {
        const refusal = formRefusal(error, (pointer) =>
          pointer === '/note' ? { field: 'note', label: 'The note' } : undefined,
        );
        const message = refusal.fields.note ?? refusal.error;
        if (fromScreening)
          return reply.redirect(`/dashboard/screenings/${encodeURIComponent(id)}?refused=note`, 303);
        return renderReview(ctx, request, reply, refusal.status, {
          rowError: { screeningId: id, flagId, note, message },
        });
      }
      const back = fromScreening
        ? `/dashboard/screenings/${encodeURIComponent(id)}?decided=${decision}`
        : `/dashboard/review?decided=${decision}`;
      return reply.redirect(back, 303);
    },
  );
}
