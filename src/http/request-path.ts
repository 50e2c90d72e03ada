import type { FastifyRequest } from 'fastify';

/** The request's path without its query string (which may carry a key a client put there by mistake). */
export function requestPath(request: Pick<FastifyRequest, 'url'>): string {
  const query = request.url.indexOf('?');
  return query < 0 ? request.url : request.url.slice(0, query);
}
