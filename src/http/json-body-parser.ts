import type { FastifyInstance } from 'fastify';
import { type FieldError, NUL_CHARACTER_DETAIL, ServiceError } from '../errors.js';
import { wellFormedJson } from '../well-formed-json.js';
import { bodyText } from './body-text.js';

/**
 * JSON request bodies are read in their declared charset, strictly (`bodyText`: bytes that are not
 * UTF-8 are a 400, never U+FFFD), parsed by Fastify's own parser (which refuses `__proto__` and
 * `constructor.prototype` keys with a 400), then made well-formed: a lone surrogate sent as a JSON
 * escape becomes U+FFFD, so the text stored, echoed and signed is the same on both databases. A NUL
 * character (`\u0000`), which no PostgreSQL text can hold, is a 422 naming each field that has one,
 * before anything is counted or stored.
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
      if (error) {
        done(error, undefined);
        return;
      }
      const nul = NUL_ESCAPE.test(text) ? nulFields(parsed, '') : [];
      if (nul.length > 0) {
        done(
          new ServiceError(
            'validation-failed',
            'The request holds a NUL character, which cannot be stored.',
            nul,
          ),
          undefined,
        );
        return;
      }
      done(null, wellFormedJson(text, parsed));
    });
  });
}

/** JSON can only spell a NUL as an escape: a body without one holds none. */
const NUL_ESCAPE = /\\u0000/;

/** The JSON pointer of every string (or key) of `value` that holds a NUL. */
function nulFields(value: unknown, pointer: string): FieldError[] {
  if (typeof value === 'string') {
    return value.includes('\u0000') ? [{ pointer: pointer || '/', detail: NUL_CHARACTER_DETAIL }] : [];
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return key.includes('\u0000') ? [{ pointer: at, detail: NUL_CHARACTER_DETAIL }] : nulFields(inner, at);
  });
}
