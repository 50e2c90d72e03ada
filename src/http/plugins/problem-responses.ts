import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { type ErrorCode, type FieldError, type ProblemMembers, ServiceError } from '../../errors.js';
import { isDatabaseDataException, isDatabaseUnavailable } from '../../store/database.js';
import { PROBLEM_ERRORS_LISTED, PROBLEMS, problemType } from '../problems.js';
import { requestPath } from '../request-path.js';
import { toFieldErrors } from '../validation.js';

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  errors: FieldError[] = [],
  members: ProblemMembers = {},
): FastifyReply {
  const kind = PROBLEMS[code];
  const body = {
    ...members,
    type: problemType(code),
    title: kind.title,
    status: kind.status,
    detail,
    instance: requestPath(request),
    request_id: String(request.id),
    ...members,
    ...(errors.length > 0 ? { errors: errors.slice(0, PROBLEM_ERRORS_LISTED) } : {}),
    ...(errors.length > PROBLEM_ERRORS_LISTED
      ? { errors_omitted: errors.length - PROBLEM_ERRORS_LISTED }
      : {}),
  };
  return reply
    .code(kind.status)
    .header('X-Request-Id', String(request.id))
    .type('application/problem+json')
    .send(body);
}

/** Framework errors (parsing, limits, validation) mapped onto the closed list of problems. */
function classify(
  error: FastifyError,
  path: string,
): { code: ErrorCode; detail: string; errors?: FieldError[]; members?: ProblemMembers } {
  if (error instanceof ServiceError)
    return { code: error.code, detail: error.detail, errors: error.fieldErrors, members: error.members };
  if (isDatabaseDataException(error)) {
    // The database refused a value the schema let through (a NUL character, an ill-formed string).
    return {
      code: 'validation-failed',
      detail: 'A value in the request cannot be stored (invalid characters).',
    };
  }
  if (isDatabaseUnavailable(error)) {
    return { code: 'service-unavailable', detail: 'The database is unavailable; retry shortly.' };
  }
  if (error.validation) {
    const where =
      error.validationContext === 'body' ? 'request body' : `${error.validationContext ?? 'request'}`;
    return {
      code: 'validation-failed',
      detail: `The ${where} does not match the schema.`,
      errors: toFieldErrors(error.validation),
    };
  }
  switch (error.statusCode) {
    case 403: // @fastify/static refusing a path it will not serve (a NUL, a dot segment): nothing is there.
    case 404:
      return { code: 'not-found', detail: `No resource at ${path}.` };
    case 413:
      return { code: 'payload-too-large', detail: 'The request body is larger than 1 MB.' };
    case 415:
      return { code: 'unsupported-media-type', detail: 'Request bodies must be application/json.' };
    default: {
      // Any other client error a framework part reports (400, 414, ...) is the request's, never a 500.
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500)
        return { code: 'malformed-request', detail: `The request could not be read: ${error.message}` };
      return { code: 'internal', detail: 'The service failed to handle the request.' };
    }
  }
}

/**
 * One error handler for the whole API: every failure becomes an RFC 9457 problem; internals
 * (stack traces, SQL, messages of unexpected errors) are logged, never returned.
 */
export function registerProblemResponses(app: FastifyInstance): void {
  const knownRoutes = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      if (!knownRoutes.find(method as HTTPMethod, route.url))
        knownRoutes.on(method as HTTPMethod, route.url, () => {});
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { code, detail, errors, members } = classify(error, requestPath(request));
    if (code === 'internal' || code === 'service-unavailable' || code === 'sources-failed')
      request.log.error({ err: error }, 'request failed');
    return sendProblem(request, reply, code, detail, errors, members);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = requestPath(request);
    const allowed = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) =>
      knownRoutes.find(m, path),
    );
    // A route that exists for this method but found nothing (an unknown problem page, a missing
    // static file) is a 404; only a method the path does not serve at all is a 405.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const served = (allowed as readonly string[]).includes(method);
    if (allowed.length > 0 && !served) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(
        request,
        reply,
        'method-not-allowed',
        `${request.method} is not allowed on ${path}.`,
      );
    }
    return sendProblem(request, reply, 'not-found', `No resource at ${path}.`);
  });
}

/** The request path as the HTTP parser saw it before it gave up, when the request line was complete. */
function rawRequestPath(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const line = /^[A-Z]+ (\/[\x21-\x7e]*) HTTP\/1\.[01]\r?\n/.exec(rawPacket.toString('latin1', 0, 4096));
  return line?.[1]?.split('?')[0];
}

const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'headers-too-large',
    detail: 'The request line and headers are larger than 16 KB.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request-timeout', detail: 'The request was not received in time.' },
};
const UNREADABLE_REQUEST = {
  code: 'malformed-request',
  detail: 'The request is not valid HTTP/1.1 (its framing, Content-Length or header characters).',
} as const;

/**
 * Requests the HTTP parser rejects (bad framing or Content-Length, control characters, headers over
 * 16 KB, too slow) never reach a route, and Fastify's default answers them with a plain JSON body.
 * This answers them on the socket with a problem document like every other error.
 */
export function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: error }, 'client error');
  const { code, detail } = CLIENT_ERRORS[error.code ?? ''] ?? UNREADABLE_REQUEST;
  const kind = PROBLEMS[code];
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: problemType(code),
    title: kind.title,
    status: kind.status,
    detail,
    instance: rawRequestPath(error.rawPacket) ?? `urn:uuid:${requestId}`,
    request_id: requestId,
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${kind.status} ${STATUS_CODES[kind.status]}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
