import type { FastifyInstance } from 'fastify';
import { wellFormedJson } from '../well-formed-json.js';
import { bodyText } from './body-text.js';

/**
 * JSON request bodies are read in their declared charset, strictly (`bodyText`: bytes that are not
 * UTF-8 are a 400, never U+FFFD), parsed by Fastify's own parser (which refuses `__proto__` and
 * `constructor.prototype` keys with a 400), then made well-formed: a lone surrogate sent as a JSON
 * escape becomes U+FFFD, so the text stored, echoed and signed is the same on both databases.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = bodyText(body as Buffer, request.headers['content-type']); // parseAs 'buffer'
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    parse(request, text, (error: Error | null, parsed?: unknown) => {
      if (error) done(error, undefined);
      else done(null, wellFormedJson(text, parsed));
    });
  });
}
