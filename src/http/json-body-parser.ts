import type { FastifyInstance } from 'fastify';
import { wellFormedJson } from '../well-formed-json.js';

/**
 * JSON request bodies are parsed by Fastify's own parser (which refuses `__proto__` and
 * `constructor.prototype` keys with a 400), then made well-formed: a lone surrogate sent as a JSON
 * escape becomes U+FFFD, so the text stored, echoed and signed is the same on both databases.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string; // parseAs 'string'
    parse(request, text, (error: Error | null, parsed?: unknown) => {
      if (error) done(error, undefined);
      else done(null, wellFormedJson(text, parsed));
    });
  });
}
