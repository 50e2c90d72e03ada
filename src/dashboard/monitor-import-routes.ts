import { Type } from 'typebox';
import type { App, AppContext } from '../http/context.js';
import { auditActor } from '../http/plugins/audit-trail.js';
import { type BatchSubmission, submissionFromCsv } from '../screening/batches/batch-input.js';
import { consoleRateLimit } from './console-rate-limit.js';
import { IMPORT_FORM_BODY_LIMIT_BYTES, importRefusal } from './monitor-import-form.js';
import { monitorsData, renderMonitors } from './monitor-routes.js';
import { formField, isHtmx } from './session-guard.js';

const config = { dashboard: 'signed-in' as const };
const ImportParams = Type.Object({ id: Type.String() });

/**
 * Importing monitors from a CSV on the Monitors page: the same service call as
 * `POST /v1/monitors/import` (all or nothing, plan, limit and quota checked for every row, first
 * screenings in the background), then its progress, polled by htmx or refreshed by hand.
 */
export function monitorImportRoutes(app: App, ctx: AppContext): void {
  // The CSV comes as a textarea's text in an urlencoded form (a file is read into it by the page's
  // script), so the form keeps its CSRF field and works without JavaScript. It alone may be larger
  // than the dashboard's other forms; a route's bodyLimit wins over the form parser's.
  app.post(
    '/monitors/import',
    {
      config: { ...config, nulReportedByRoute: ['csv'] },
      bodyLimit: IMPORT_FORM_BODY_LIMIT_BYTES,
      schema: { hide: true },
    },
    async (request, reply) => {
      const user = request.dashboardUser!;
      const csv = formField(request, 'csv');
      // Reading a large CSV costs; the console's rate limit per user holds for imports too.
      const limited = await consoleRateLimit(ctx, user.userId, reply, 'requests sent');
      if (limited) return renderMonitors(ctx, request, reply, 429, { importForm: { csv, error: limited } });
      if (csv.trim() === '') {
        return renderMonitors(ctx, request, reply, 422, {
          importForm: { csv, csvError: 'Choose a CSV file, or paste its rows with the header row first.' },
        });
      }
      let submission: BatchSubmission | undefined;
      try {
        submission = await submissionFromCsv(csv);
        const progress = await ctx.monitors.import(
          { accountId: user.accountId, keyId: null, plan: user.plan, userId: user.userId },
          submission,
          auditActor(request),
        );
        return renderMonitors(ctx, request, reply, 201, { imported: { progress, focus: true } });
      } catch (error) {
        // The rows' lines as read: a blank line or a quoted line break moves the rows after it.
        const refusal = importRefusal(error, csv, submission?.lines);
        return renderMonitors(ctx, request, reply, refusal.status, { importForm: refusal.form });
      }
    },
  );

  // htmx polls this while the import runs: the progress alone, then, once done, the progress and
  // the list (its monitors now active or failed) out of band. Without JavaScript, the progress
  // panel's refresh link opens it as the whole page.
  app.get(
    '/monitors/imports/:id',
    { config, schema: { hide: true, params: ImportParams } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      const progress = await ctx.monitors.getImport(user.accountId, request.params.id);
      const imported = { progress, focus: false };
      if (!isHtmx(request)) return renderMonitors(ctx, request, reply, 200, { imported });
      if (progress.status === 'processing')
        return reply.viewAsync('partials/monitor-import-progress', { imported });
      return reply.viewAsync('partials/monitor-import-done', await monitorsData(ctx, request, { imported }));
    },
  );
}
