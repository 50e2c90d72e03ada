import { usageOverview } from '../accounts/usage-history.js';
import type { App, AppContext } from '../http/context.js';
import { monthChart } from './chart.js';

export function usageRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/usage',
    { config: { dashboard: 'signed-in' }, schema: { hide: true } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      const overview = await usageOverview(ctx.db, ctx.clock.now(), user.accountId, user.plan);
      return reply.viewAsync('usage', {
        title: 'Usage',
        nav: 'usage',
        user,
        overview,
        charts: [monthChart(overview.currentMonth), monthChart(overview.previousMonth)],
      });
    },
  );
}
