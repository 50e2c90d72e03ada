import { Type } from 'typebox';
import { listAuditRecordsWithUsers } from '../audit/audit-view.js';
import type { App, AppContext } from '../http/context.js';

/** Rows per page of the audit page. */
export const AUDIT_PAGE_ROWS = 50;

const AuditQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  status: Type.Optional(Type.String({ maxLength: 10 })),
  path: Type.Optional(Type.String({ maxLength: 2048 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
});

/**
 * A time of the filter form: `datetime-local` gives `2026-11-16T09:00` with no zone, which the
 * page says is UTC; a full ISO 8601 instant (a bookmarked or hand-written URL) is taken as it is.
 */
function instant(value: string): Date | undefined {
  const withZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) ? `${value}Z` : value;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(withZone)) return undefined;
  const date = new Date(withZone);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The filter as typed (kept in the URL) and what it means, or the problems of its fields. */
function readFilter(query: Record<string, string | undefined>) {
  const typed = {
    from: query.from?.trim() ?? '',
    to: query.to?.trim() ?? '',
    status: query.status?.trim().toLowerCase() ?? '',
    path: query.path?.trim() ?? '',
  };
  const errors: Record<string, string> = {};
  const from = typed.from === '' ? undefined : instant(typed.from);
  const to = typed.to === '' ? undefined : instant(typed.to);
  if (typed.from !== '' && !from) errors.from = 'Enter a date and time, e.g. 2026-11-16T09:00.';
  if (typed.to !== '' && !to) errors.to = 'Enter a date and time, e.g. 2026-11-16T17:00.';
  if (from && to && from >= to) errors.to = 'The end must be after the start.';
  if (typed.status !== '' && !/^[1-5]([0-9]{2}|xx)$/.test(typed.status))
    errors.status = 'Enter a status such as 404, or a class such as 4xx.';
  if (typed.path !== '' && !typed.path.startsWith('/'))
    errors.path = 'A path starts with /, e.g. /v1/screen.';
  return {
    typed,
    errors,
    filter: { from, to, status: typed.status || undefined, path: typed.path || undefined },
  };
}

/** The page's URL with these filters (and a cursor): filters live in the URL, so a view can be bookmarked. */
function pageUrl(typed: Record<string, string>, cursor?: string): string {
  const params = new URLSearchParams(Object.entries(typed).filter(([, v]) => v !== ''));
  if (cursor) params.set('cursor', cursor);
  const query = params.toString();
  return query ? `/dashboard/audit?${query}` : '/dashboard/audit';
}

export function auditRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/audit',
    { config: { dashboard: 'signed-in' }, schema: { hide: true, querystring: AuditQuery } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      const { typed, errors, filter } = readFilter(request.query);
      const invalid = Object.keys(errors).length > 0;
      // This instance's buffered rows are written first, so the page shows the requests just made.
      await ctx.audit.flush();
      const page = invalid
        ? { data: [], next_cursor: null }
        : await listAuditRecordsWithUsers(ctx.db, user.accountId, {
            ...filter,
            cursor: request.query.cursor,
            limit: AUDIT_PAGE_ROWS,
          });
      return reply.code(invalid ? 422 : 200).viewAsync('audit', {
        title: 'Audit log',
        nav: 'audit',
        user,
        typed,
        errors,
        page,
        paged: request.query.cursor !== undefined,
        firstPageUrl: pageUrl(typed),
        nextPageUrl: page.next_cursor ? pageUrl(typed, page.next_cursor) : undefined,
      });
    },
  );
}
