import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { type ErrorCode, type FieldError, ServiceError } from '../../errors.js';
import { isDatabaseDataException, isDatabaseUnavailable } from '../../store/database.js';
import { PROBLEMS, problemType } from '../problems.js';
import { requestPath } from '../request-path.js';
import { toFieldErrors } from '../validation.js';

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  errors: FieldError[] = [],
): FastifyReply {
  const kind = PROBLEMS[code];
  const body = {
    type: problemType(code),
    title: kind.title,
    status: kind.status,
    detail,
    instance: requestPath(request),
    request_id: String(request.id),
    ...(errors.length > 0 ? { errors } : {}),
  };
  return reply
    .code(kind.status)
    .header('X-Request-Id', String(request.id))
    .type('application/problem+json')
    .send(body);
}

/** Framework errors (parsing, limits, validation) mapped onto the closed list of problems. */
function classify(error: FastifyError): { code: ErrorCode; detail: string; errors?: FieldError[] } {
  if (error instanceof ServiceError)
    return { code: error.code, detail: error.detail, errors: error.fieldErrors };
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
    case 400:
      return { code: 'malformed-request', detail: `The request could not be read: ${error.message}` };
    case 413:
      return { code: 'payload-too-large', detail: 'The request body is larger than 1 MB.' };
    case 415:
      return { code: 'unsupported-media-type', detail: 'Request bodies must be application/json.' };
    default:
      return { code: 'internal', detail: 'The service failed to handle the request.' };
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
    const { code, detail, errors } = classify(error);
    if (code === 'internal' || code === 'service-unavailable')
      request.log.error({ err: error }, 'request failed');
    return sendProblem(request, reply, code, detail, errors);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = requestPath(request);
    const allowed = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) =>
      knownRoutes.find(m, path),
    );
    if (allowed.length > 0) {
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
