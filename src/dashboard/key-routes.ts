import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ApiKeyView, CreatedApiKey } from '../accounts/api-keys.js';
import type { SignedInUser } from '../accounts/dashboard-sessions.js';
import { notFound } from '../errors.js';
import type { App, AppContext } from '../http/context.js';
import { changeActor } from '../http/plugins/audit-trail.js';
import { formRefusal } from './form-errors.js';
import { formField, isHtmx } from './session-guard.js';

/** The same bounds as `POST /v1/keys`. */
export const KEY_NAME_MAX_LENGTH_CHARS = 100;
const config = { dashboard: 'signed-in' as const };
const KeyParams = Type.Object({ id: Type.String() });

interface KeysView {
  created?: CreatedApiKey;
  notice?: string;
  error?: string;
  name?: string;
}

async function renderKeys(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: KeysView,
) {
  const user = request.dashboardUser!;
  const keys = await ctx.accounts.listKeys(user.accountId);
  const data = { title: 'API keys', nav: 'keys', user, keys, name: '', ...view };
  // htmx replaces the keys panel only; a plain form post gets the whole page.
  return reply.code(status).viewAsync(isHtmx(request) ? 'partials/keys-panel' : 'keys', data);
}

function keyNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'Give the key a name.';
  if ([...name].length > KEY_NAME_MAX_LENGTH_CHARS)
    return `The name must be at most ${KEY_NAME_MAX_LENGTH_CHARS} characters long.`;
  return undefined;
}

async function ownKey(ctx: AppContext, user: SignedInUser, id: string): Promise<ApiKeyView> {
  const key = (await ctx.accounts.listKeys(user.accountId)).find((k) => k.id === id);
  if (!key) throw notFound('The API key');
  return key;
}

export function keyRoutes(app: App, ctx: AppContext): void {
  app.get('/keys', { config, schema: { hide: true } }, async (request, reply) =>
    renderKeys(ctx, request, reply, 200, {}),
  );

  app.post('/keys', { config, schema: { hide: true } }, async (request, reply) => {
    const name = formField(request, 'name').trim();
    const error = keyNameProblem(name);
    if (error) return renderKeys(ctx, request, reply, 422, { error, name });
    try {
      const created = await ctx.accounts.createKey(
        changeActor(request),
        request.dashboardUser!.accountId,
        name,
      );
      return renderKeys(ctx, request, reply, 201, { created });
    } catch (error) {
      const refusal = formRefusal(error, () => undefined);
      return renderKeys(ctx, request, reply, refusal.status, { error: refusal.error, name });
    }
  });

  // Without JavaScript the row's button posts without `confirm`, and gets a confirmation page
  // first; with it, the confirmation dialog sends `confirm=yes` directly.
  app.post(
    '/keys/:id/revoke',
    { config, schema: { hide: true, params: KeyParams } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      if (formField(request, 'confirm') !== 'yes') {
        const key = await ownKey(ctx, user, request.params.id);
        return reply.viewAsync('revoke', { title: 'Revoke key', nav: 'keys', user, key });
      }
      const revoked = await ctx.accounts.revokeKey(changeActor(request), request.params.id, user.accountId);
      return renderKeys(ctx, request, reply, 200, {
        notice: `The key “${revoked.name}” (${revoked.prefix}…${revoked.last4}) is revoked: the API refuses it from now on.`,
      });
    },
  );
}
