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
  app.removeContentTypeParser('application/json');
  parseJsonBodies(app, (text, parsed) => {
    const nul = mayHoldNul(text) ? nulFields(parsed, '') : [];
    if (nul.length > 0) {
      throw new ServiceError(
        'validation-failed',
        'The request holds a NUL character, which cannot be stored.',
        nul,
      );
    }
    return wellFormedJson(text, parsed);
  });
}

/**
 * Adds a JSON parser to `app` that reads the body in its charset and parses it as Fastify does;
 * `finish` checks or amends what was parsed (and may throw the request's refusal). A scope whose
 * bodies are checked a part at a time (a long list of parties) finishes nothing here.
 */
export function parseJsonBodies(
  app: FastifyInstance,
  finish: (text: string, parsed: unknown) => unknown,
  bodyLimit?: number,
): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  const limit = bodyLimit !== undefined ? { bodyLimit } : {};
  app.addContentTypeParser('application/json', { parseAs: 'buffer', ...limit }, (request, body, done) => {
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
      let finished: unknown;
      try {
        finished = finish(text, parsed);
      } catch (refusal) {
        done(refusal as Error, undefined);
        return;
      }
      done(null, finished);
    });
  });
}

/** JSON can only spell a NUL as an escape: a body without one holds none. */
const NUL_ESCAPE = /\\u0000/;

/** Whether parsing JSON `text` may give a string holding a NUL. */
export function mayHoldNul(text: string): boolean {
  return NUL_ESCAPE.test(text);
}

/** The JSON pointer of every string (or key) of `value` that holds a NUL. */
export function nulFields(value: unknown, pointer: string): FieldError[] {
  if (typeof value === 'string') {
    return value.includes('\u0000') ? [{ pointer: pointer || '/', detail: NUL_CHARACTER_DETAIL }] : [];
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return key.includes('\u0000') ? [{ pointer: at, detail: NUL_CHARACTER_DETAIL }] : nulFields(inner, at);
  });
}
