import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PLANS } from '../accounts/plans.js';
import type { App, AppContext } from '../http/context.js';
import { auditActor } from '../http/plugins/audit-trail.js';
import type { ImportView } from '../screening/monitoring/monitor-import-queue.js';
import type { MonitorView } from '../screening/monitoring/monitor-service.js';
import { QUERY_MAX_CODE_POINTS, REFERENCE_MAX_CHARS } from '../screening/screening-policy.js';
import type { ScreeningRequest } from '../screening/screening-request.js';
import type { ScreeningResult } from '../screening/screening-result.js';
import { consoleRateLimit } from './console-rate-limit.js';
import { formRefusal } from './form-errors.js';
import { type ImportForm, importFormData } from './monitor-import-form.js';
import { formField, isHtmx } from './session-guard.js';

const config = { dashboard: 'signed-in' as const };
/** Monitors a page shows, as many as the history's screenings. */
export const MONITORS_PAGE_SIZE = 25;
/** The add form offers a person or any kind (`entity`); the API takes the other types too. */
const MONITOR_TYPES = ['person', 'entity'] as const;
const MonitorsQuery = Type.Object({
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_MAX_CHARS * 4 })),
  before: Type.Optional(Type.String({ maxLength: 512 })),
});
const MonitorParams = Type.Object({ id: Type.String() });

/** What the add form was filled with, to show it again after a refusal. */
interface MonitorForm {
  query: string;
  type: string;
  dateOfBirth: string;
  countries: string;
  reference: string;
}

/** Which page of the list is shown: the reference searched for, and the page's cursor. */
interface ListPosition {
  reference: string;
  before?: string | undefined;
}

export interface MonitorsView {
  position?: ListPosition;
  created?: MonitorView & { screening: ScreeningResult };
  /** An import whose progress the page shows; `focus` when it was just made (not on a poll). */
  imported?: { progress: ImportView; focus: boolean };
  notice?: string;
  error?: string;
  fieldErrors?: Record<string, string>;
  form?: MonitorForm;
  importForm?: ImportForm;
}

const FIELDS: Record<string, { field: string; label: string }> = {
  '/query': { field: 'query', label: 'The name' },
  '/type': { field: 'type', label: 'The type' },
  '/date_of_birth': { field: 'date_of_birth', label: 'The birth date' },
  '/countries': { field: 'countries', label: 'The country code' },
  '/reference': { field: 'reference', label: 'The reference' },
};

const EMPTY_FORM: MonitorForm = { query: '', type: 'person', dateOfBirth: '', countries: '', reference: '' };

function listQuery(position: ListPosition): string {
  return position.reference ? new URLSearchParams({ reference: position.reference }).toString() : '';
}

/** What the monitors page and its partials are rendered with. */
export async function monitorsData(ctx: AppContext, request: FastifyRequest, view: MonitorsView) {
  const user = request.dashboardUser!;
  const position = view.position ?? { reference: '' };
  const page = await ctx.monitors.list(user.accountId, {
    reference: position.reference || undefined,
    cursor: position.before,
    limit: MONITORS_PAGE_SIZE,
  });
  return {
    title: 'Monitors',
    nav: 'monitors',
    user,
    offered: PLANS[user.plan].monitoring,
    monitorsMax: PLANS[user.plan].monitorsMax,
    page,
    position,
    query: listQuery(position),
    paged: position.before !== undefined,
    queryMaxChars: QUERY_MAX_CODE_POINTS,
    referenceMaxChars: REFERENCE_MAX_CHARS,
    form: view.form ?? EMPTY_FORM,
    fieldErrors: view.fieldErrors ?? {},
    created: view.created,
    imported: view.imported,
    notice: view.notice,
    error: view.error,
    importForm: importFormData(view.importForm),
  };
}

export async function renderMonitors(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: MonitorsView,
) {
  const data = await monitorsData(ctx, request, view);
  // htmx replaces the monitors panel only; a plain form post gets the whole page.
  return reply.code(status).viewAsync(isHtmx(request) ? 'partials/monitors-panel' : 'monitors', data);
}

/** The form as a monitor's request, or the problems of its fields the service would not see. */
function readForm(request: FastifyRequest) {
  const form: MonitorForm = {
    query: formField(request, 'query').trim(),
    type: formField(request, 'type') || 'person',
    dateOfBirth: formField(request, 'date_of_birth').trim(),
    countries: formField(request, 'countries').trim(),
    reference: formField(request, 'reference').trim(),
  };
  const fieldErrors: Record<string, string> = {};
  if (form.query === '') fieldErrors.query = 'Enter the name to monitor.';
  if (!(MONITOR_TYPES as readonly string[]).includes(form.type))
    fieldErrors.type = 'Choose whether the name is of a person or of any kind of party.';
  const countries = form.countries.split(/[\s,;]+/).filter(Boolean);
  const monitor: ScreeningRequest = {
    query: form.query,
    type: form.type as ScreeningRequest['type'],
    ...(form.dateOfBirth !== '' ? { date_of_birth: form.dateOfBirth } : {}),
    ...(countries.length > 0 ? { countries } : {}),
    ...(form.reference !== '' ? { reference: form.reference } : {}),
  };
  return { form, fieldErrors, monitor };
}

function positionOf(request: FastifyRequest): ListPosition {
  return { reference: formField(request, 'list_reference').trim() };
}

export function monitorRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/monitors',
    { config, schema: { hide: true, querystring: MonitorsQuery } },
    async (request, reply) =>
      renderMonitors(ctx, request, reply, 200, {
        position: { reference: request.query.reference?.trim() ?? '', before: request.query.before },
      }),
  );

  // The same service call as POST /v1/monitors: plan, limit, validation, the first screening
  // (counted, stored, audited, sent to webhooks) behave exactly as through the API. The monitor is
  // the account's, made by the user as a console screening is (no key).
  app.post('/monitors', { config, schema: { hide: true } }, async (request, reply) => {
    const user = request.dashboardUser!;
    const { form, fieldErrors, monitor } = readForm(request);
    // The first screening is a screening: the console's rate limit per user holds here too.
    const limited = await consoleRateLimit(ctx, user.userId, reply, 'names screened');
    if (limited) return renderMonitors(ctx, request, reply, 429, { form, error: limited });
    if (Object.keys(fieldErrors).length > 0)
      return renderMonitors(ctx, request, reply, 422, { form, fieldErrors });
    try {
      const created = await ctx.monitors.create(
        { accountId: user.accountId, keyId: null, plan: user.plan, userId: user.userId },
        monitor,
        auditActor(request),
      );
      return renderMonitors(ctx, request, reply, 201, { created });
    } catch (error) {
      // `/countries/2` is about the field `/countries`.
      const refusal = formRefusal(
        error,
        (pointer) => FIELDS[pointer] ?? FIELDS[pointer.split('/', 2).join('/')],
      );
      return renderMonitors(ctx, request, reply, refusal.status, {
        form,
        error: refusal.error,
        fieldErrors: refusal.fields,
      });
    }
  });

  // Without JavaScript the row's button posts without `confirm`, and gets a confirmation page
  // first; with it, the confirmation dialog sends `confirm=yes` directly.
  app.post(
    '/monitors/:id/delete',
    { config, schema: { hide: true, params: MonitorParams } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      const position = positionOf(request);
      if (formField(request, 'confirm') !== 'yes') {
        const monitor = await ctx.monitors.get(user.accountId, request.params.id);
        return reply.viewAsync('monitor-delete', {
          title: 'Stop monitoring',
          nav: 'monitors',
          user,
          monitor,
          position,
        });
      }
      const monitor = await ctx.monitors.get(user.accountId, request.params.id);
      await ctx.monitors.delete(auditActor(request), request.params.id);
      return renderMonitors(ctx, request, reply, 200, {
        position,
        notice: `“${monitor.query ?? monitor.reference ?? monitor.id}” is no longer monitored. Its alerts stay in the inbox.`,
      });
    },
  );
}
