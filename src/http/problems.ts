import { Type } from 'typebox';
import type { ErrorCode } from '../errors.js';
import { SourceFailureSchema } from './schemas.js';

/**
 * The problem types of RFC 9457 that the API returns, one per `ErrorCode`. The `type` member is
 * the stable identifier clients compare; it is a path on the service itself, where a page
 * describes the problem (see docs/errors.md).
 */
export interface ProblemKind {
  status: number;
  title: string;
  /** What a client should do about it; shown on the problem's documentation page. */
  advice: string;
}

export const PROBLEM_TYPE_BASE = '/problems/';

/**
 * The most `errors` a problem lists (the first ones, in the order of the request); `errors_omitted`
 * counts the rest. A 100,000-row import with every row bad answered 10.7 MB of errors; the first
 * hundred say what is wrong, as the dashboard's import form shows the first hundred bad rows.
 */
export const PROBLEM_ERRORS_LISTED = 100;

export const PROBLEMS: Readonly<Record<ErrorCode, ProblemKind>> = {
  'malformed-request': {
    status: 400,
    title: 'Malformed request',
    advice:
      'Send a syntactically valid JSON body (or no body where none is expected), encoded in UTF-8 or in the charset its Content-Type declares.',
  },
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    advice: 'Send a valid API key in the header `Authorization: Bearer cs_live_...`.',
  },
  'admin-unauthenticated': {
    status: 401,
    title: 'Operator authentication required',
    advice: 'Send the operator token in the header `Authorization: Bearer <ADMIN_TOKEN>`.',
  },
  'key-revoked': {
    status: 403,
    title: 'API key revoked',
    advice: 'The key was revoked. Create a new key (POST /v1/keys with another key, or ask your operator).',
  },
  'account-suspended': {
    status: 403,
    title: 'Account suspended',
    advice: 'The account is suspended. Contact the operator of this service.',
  },
  'plan-feature-unavailable': {
    status: 403,
    title: 'Not available on your plan',
    advice: 'The feature requires a higher plan (Professional or Enterprise).',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    advice: 'Check the path and the identifier. Objects of other accounts are reported as not found.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    advice: 'Use one of the methods listed in the `Allow` response header.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    advice: 'The request conflicts with the current state of the object; read it again and retry.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    advice:
      'The request was not received in time (its headers within 10 s, all of it within 30 s); send it again.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Request body too large',
    advice: 'Request bodies are limited to 1 MB.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    advice:
      'Send request bodies as `Content-Type: application/json` (or `text/csv` where accepted), in UTF-8, us-ascii, iso-8859-1 or windows-1252.',
  },
  'validation-failed': {
    status: 422,
    title: 'Validation failed',
    advice: 'Fix the fields listed in `errors` (JSON pointers into the request) and send it again.',
  },
  'limit-reached': {
    status: 422,
    title: 'Account limit reached',
    advice:
      'The account has as many of these objects as it may (10 webhooks, 20 active API keys); delete or revoke one it no longer needs first.',
  },
  'quota-exceeded': {
    status: 402,
    title: 'Monthly screening quota exhausted',
    advice: 'The account used all screenings of its plan this month; see GET /v1/usage for the reset date.',
  },
  'quota-insufficient': {
    status: 402,
    title: 'Not enough screenings left this month',
    advice:
      'The request asks for more screenings (`requested`) than the month has left (`remaining`); nothing was done. Send at most `remaining` items, or wait for the reset (GET /v1/usage).',
  },
  'monitor-limit-reached': {
    status: 402,
    title: 'Monitor limit of the plan reached',
    advice:
      'The account monitors as many subjects as its plan allows (Professional 10,000); delete monitors it no longer needs, or move to Enterprise.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    advice: 'Wait the number of seconds given in `Retry-After` before sending more requests with this key.',
  },
  'headers-too-large': {
    status: 431,
    title: 'Request headers too large',
    advice: 'The request line and headers together are limited to 16 KB; send shorter headers or URL.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service temporarily unavailable',
    advice: 'A dependency of the service is unavailable. Retry with back-off.',
  },
  'sources-failed': {
    status: 500,
    title: 'All sources failed',
    advice:
      'No selected source could answer, so nothing was checked and nothing was counted: `sources_failed` names each source and why (`timeout`, `unavailable`, `error`). Retry later, with back-off.',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    advice: 'The service failed unexpectedly. Retry later; quote the `request_id` when reporting it.',
  },
};

export function problemType(code: ErrorCode): string {
  return PROBLEM_TYPE_BASE + code;
}

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'Stable identifier of the problem kind (a path on this service).' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: 'The request path that produced the problem.' }),
    request_id: Type.String(),
    requested: Type.Optional(
      Type.Integer({ description: 'quota-insufficient: the screenings the request asked for' }),
    ),
    remaining: Type.Optional(
      Type.Integer({ description: 'quota-insufficient: the screenings left this month' }),
    ),
    errors_omitted: Type.Optional(
      Type.Integer({
        description: `Problems beyond the first ${PROBLEM_ERRORS_LISTED} listed in \`errors\`, left out`,
      }),
    ),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          pointer: Type.String({
            description: 'JSON pointer into the request (body, or query for parameters).',
          }),
          detail: Type.String(),
        }),
      ),
    ),
    sources_failed: Type.Optional(
      Type.Array(SourceFailureSchema, {
        description: '`/problems/sources-failed` only: every selected source, and why it failed.',
      }),
    ),
  },
  { $id: 'Problem', title: 'Problem (RFC 9457)' },
);
