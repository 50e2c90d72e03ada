import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App, AppContext } from '../http/context.js';
import { auditActor } from '../http/plugins/audit-trail.js';
import { monitorSubjects } from '../screening/monitoring/monitor-subjects.js';
import { ALERT_NOTE_MAX_CHARS } from '../screening/monitoring/monitoring-policy.js';
import { type AlertStatusFilter, alertRowView, alertStatusFilter } from './alert-view.js';
import { formField } from './session-guard.js';

const config = { dashboard: 'signed-in' as const };
/** Alerts a page of the inbox shows: each is a card with a form, fewer than the history's rows. */
export const ALERTS_PAGE_SIZE = 20;
const InboxQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 10 })),
  monitor: Type.Optional(Type.String({ maxLength: 100 })),
  before: Type.Optional(Type.String({ maxLength: 512 })),
  closed: Type.Optional(Type.String({ maxLength: 10 })),
});
const AlertParams = Type.Object({ id: Type.String() });

/** A refused closing, shown on its alert with what was typed. */
interface RowError {
  alertId: string;
  note: string;
  message: string;
}

interface InboxView {
  status: AlertStatusFilter;
  monitorId?: string | undefined;
  before?: string | undefined;
  notice?: string | undefined;
  rowError?: RowError;
}

/** The inbox's filter as a query string, carried by its pager, its tabs and its forms. */
function inboxQuery(view: { status: AlertStatusFilter; monitorId?: string | undefined }): string {
  const params = new URLSearchParams({ status: view.status });
  if (view.monitorId) params.set('monitor', view.monitorId);
  return params.toString();
}

async function renderInbox(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: InboxView,
) {
  const user = request.dashboardUser!;
  const page = await ctx.monitors.alerts(user.accountId, {
    status: view.status === 'all' ? undefined : view.status,
    monitorId: view.monitorId,
    cursor: view.before,
    limit: ALERTS_PAGE_SIZE,
  });
  const subjects = await monitorSubjects(
    ctx.db,
    user.accountId,
    page.data.map((alert) => alert.monitor_id),
  );
  return reply.code(status).viewAsync('alerts', {
    title: 'Alerts',
    nav: 'alerts',
    user,
    status: view.status,
    monitorId: view.monitorId,
    monitorName: view.monitorId ? subjects.get(view.monitorId) : undefined,
    query: inboxQuery(view),
    paged: view.before !== undefined,
    nextCursor: page.next_cursor,
    rows: page.data.map((alert) => alertRowView(alert, subjects.get(alert.monitor_id))),
    notice: view.notice,
    rowError: view.rowError,
    noteMaxChars: ALERT_NOTE_MAX_CHARS,
    monitoringOffered: user.plan !== 'starter',
  });
}

function noteProblem(note: string): string | undefined {
  if (note.trim().length === 0) return 'Write what you found: a note is required to close an alert.';
  if ([...note].length > ALERT_NOTE_MAX_CHARS)
    return `The note must be at most ${ALERT_NOTE_MAX_CHARS} characters long.`;
  return undefined;
}

/**
 * The alerts list changes raise on the account's monitors: open ones first (a filter of open,
 * closed or all), and closing one with a note, as `GET /v1/alerts` and `POST /v1/alerts/{id}/close`.
 */
export function alertRoutes(app: App, ctx: AppContext): void {
  app.get('/alerts', { config, schema: { hide: true, querystring: InboxQuery } }, async (request, reply) => {
    const { query } = request;
    return renderInbox(ctx, request, reply, 200, {
      status: alertStatusFilter(query.status),
      monitorId: query.monitor?.trim() || undefined,
      before: query.before,
      notice:
        query.closed === 'yes'
          ? 'The alert is closed with your note. Closed alerts and their notes are listed under “Closed”.'
          : undefined,
    });
  });

  app.post(
    '/alerts/:id/close',
    { config, schema: { hide: true, params: AlertParams } },
    async (request, reply) => {
      const { id } = request.params;
      const note = formField(request, 'note');
      const back = {
        status: alertStatusFilter(formField(request, 'status') || undefined),
        monitorId: formField(request, 'monitor').trim() || undefined,
      };
      const problem = noteProblem(note);
      if (problem) {
        return renderInbox(ctx, request, reply, 422, {
          ...back,
          rowError: { alertId: id, note, message: problem },
        });
      }
      // Not the account's alert: a 404 page (the service says so), never another account's row.
      await ctx.monitors.closeAlert(auditActor(request), id, note.trim());
      return reply.redirect(`/dashboard/alerts?${inboxQuery(back)}&closed=yes`, 303);
    },
  );
}
