import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, AppContext } from '../http/context.js';
import {
  cookieOptions,
  formField,
  HOME_PATH,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  SIGN_IN_PATH,
  signInToken,
} from './session-guard.js';

/**
 * One message for an unknown email, a wrong password and a suspended account: the page must not
 * tell which (a suspended user's right password answered otherwise would confirm the guess).
 */
export const SIGN_IN_FAILED_MESSAGE = 'Cannot sign in with this email and password.';
const hide = { hide: true };

export function renderSignIn(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: { email?: string; error?: string },
) {
  return reply.code(status).viewAsync('sign-in', {
    title: 'Sign in',
    user: undefined,
    signInToken: signInToken(request, reply),
    email: view.email ?? '',
    error: view.error,
  });
}

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return m === 1 ? '1 minute' : `${m} minutes`;
}

export function signInRoutes(app: App, ctx: AppContext): void {
  app.get('/', { config: { dashboard: 'public' }, schema: hide }, async (request, reply) =>
    reply.redirect(request.dashboardUser ? HOME_PATH : SIGN_IN_PATH, 303),
  );

  app.get('/sign-in', { config: { dashboard: 'public' }, schema: hide }, async (request, reply) => {
    if (request.dashboardUser) return reply.redirect(HOME_PATH, 303);
    return renderSignIn(request, reply, 200, {});
  });

  app.post('/sign-in', { config: { dashboard: 'public' }, schema: hide }, async (request, reply) => {
    const email = formField(request, 'email');
    const password = formField(request, 'password');
    if (email.trim() === '' || password === '') {
      return renderSignIn(request, reply, 422, { email, error: 'Enter your email and your password.' });
    }
    const result = await ctx.dashboardSessions.signIn(email, password, request.ip);
    switch (result.outcome) {
      case 'signed-in': {
        // A session cookie already present is replaced: each sign-in gets a fresh token (no fixation).
        const previous = request.cookies[SESSION_COOKIE];
        if (previous) await ctx.dashboardSessions.signOut(previous);
        request.dashboardUser = result.user;
        reply.setCookie(SESSION_COOKIE, result.token, cookieOptions(request));
        reply.clearCookie(SIGN_IN_COOKIE, cookieOptions(request, SIGN_IN_PATH));
        return reply.redirect(HOME_PATH, 303);
      }
      case 'invalid':
        return renderSignIn(request, reply, 401, { email, error: SIGN_IN_FAILED_MESSAGE });
      case 'locked':
        reply.header('Retry-After', String(result.retryAfterSeconds));
        return renderSignIn(request, reply, 429, {
          email,
          error:
            result.reason === 'pair'
              ? `Too many failed sign-ins. Try again in ${minutes(result.retryAfterSeconds)}.`
              : `Too many sign-in attempts from your network. Try again in ${minutes(result.retryAfterSeconds)}.`,
        });
    }
  });

  app.post('/sign-out', { config: { dashboard: 'signed-in' }, schema: hide }, async (request, reply) => {
    await ctx.dashboardSessions.signOut(request.cookies[SESSION_COOKIE] ?? '');
    reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
    return reply.redirect(SIGN_IN_PATH, 303);
  });
}
