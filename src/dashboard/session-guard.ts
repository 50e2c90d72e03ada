import { randomBytes } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';
import { DASHBOARD_PREFIX } from './paths.js';

/**
 * Who may use a dashboard route: `signed-in` needs a session (state-changing requests also the
 * session's CSRF token); `public` is the sign-in page and its form (which carries a pre-session
 * token of its own). Static files have no setting and never look at sessions.
 */
export type DashboardAccess = 'signed-in' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    dashboard?: DashboardAccess;
  }
}

export const SESSION_COOKIE = 'css_session';
/** The sign-in form's own CSRF token (double submit): a session does not exist yet to tie it to. */
export const SIGN_IN_COOKIE = 'css_sign_in';
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';
const SIGN_IN_TOKEN_BYTES = 32;

export const SIGN_IN_PATH = `${DASHBOARD_PREFIX}/sign-in`;
export const HOME_PATH = `${DASHBOARD_PREFIX}/keys`;

/**
 * HttpOnly (scripts never see the session), SameSite=Lax (other sites' forms do not send it),
 * Secure when the request came over HTTPS (directly, or per X-Forwarded-Proto from a trusted
 * proxy), and scoped to the dashboard's path so API requests never carry it. No Max-Age: the
 * browser drops it when closed; the server ends it after the idle time either way.
 */
export function cookieOptions(request: FastifyRequest, path = DASHBOARD_PREFIX): CookieSerializeOptions {
  return { path, httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https' };
}

/** A form field of an urlencoded body, or '' (a repeated or missing field is not a value). */
export function formField(request: FastifyRequest, name: string): string {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value : '';
}

/** Every value of a repeated form field (checkboxes), or [] when absent. */
export function formFields(request: FastifyRequest, name: string): string[] {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function isHtmx(request: FastifyRequest): boolean {
  return request.headers['hx-request'] === 'true';
}

function sendToSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // htmx follows redirects inside the page; HX-Redirect makes it load the sign-in page instead.
  if (isHtmx(request)) return reply.code(401).header('HX-Redirect', SIGN_IN_PATH).send();
  return reply.redirect(SIGN_IN_PATH, 303);
}

/** The sign-in form's token: the one already in its cookie, else a new one set now. */
export function signInToken(request: FastifyRequest, reply: FastifyReply): string {
  const existing = request.cookies[SIGN_IN_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(SIGN_IN_TOKEN_BYTES).toString('base64url');
  reply.setCookie(SIGN_IN_COOKIE, token, cookieOptions(request, SIGN_IN_PATH));
  return token;
}

/** Resolves the session cookie (sliding it forward); a signed-in route without one goes to sign-in. */
export function sessionHook(ctx: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config.dashboard;
    if (access === undefined) return;
    const token = request.cookies[SESSION_COOKIE];
    if (token) {
      request.dashboardUser = await ctx.dashboardSessions.authenticate(token);
      if (!request.dashboardUser) reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
    }
    if (access === 'signed-in' && !request.dashboardUser) return sendToSignIn(request, reply);
  };
}

/**
 * Every state-changing (POST) request must prove it comes from a page of this dashboard: a
 * signed-in one by the session's synchronizer token (form field, or header for htmx), the
 * sign-in form by its cookie's token. Browsers that say a request is cross-site are refused first.
 * Returns the reason to refuse, or undefined.
 */
export function csrfRefusal(ctx: AppContext, request: FastifyRequest): string | undefined {
  if (request.method !== 'POST') return undefined;
  if (request.headers['sec-fetch-site'] === 'cross-site') return 'The request came from another site.';
  const presented = (request.headers[CSRF_HEADER] as string | undefined) ?? formField(request, CSRF_FIELD);
  const user = request.dashboardUser;
  if (request.routeOptions.config.dashboard === 'signed-in') {
    return user && ctx.dashboardSessions.csrfMatches(user, presented)
      ? undefined
      : 'The request did not carry this session’s security token.';
  }
  const expected = request.cookies[SIGN_IN_COOKIE];
  return expected && presented === expected ? undefined : 'The sign-in form expired.';
}
