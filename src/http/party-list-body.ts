import type { FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import { ServiceError } from '../errors.js';
import {
  type BatchSubmission,
  type ItemsLimit,
  submissionFromCsv,
} from '../screening/batches/batch-input.js';
import { bodyText } from './body-text.js';
import type { App } from './context.js';
import { checkedJsonPartyList, ParsedJsonBody } from './party-list-json.js';
import { parseInSlices } from './sliced-json-parse.js';
import { compileValidator } from './validation.js';

/** A CSV body's text, told apart from a JSON body that is a string. */
class CsvText {
  constructor(readonly text: string) {}
}

/**
 * Bodies listing many parties (a batch, an import of monitors): JSON `{items, options}` or a CSV
 * text, up to `bodyLimit` bytes, in the scope given (everywhere else a text/csv body is a 415).
 * Both are only parsed here (JSON a slice at a time, at most `limit.max` + 1 items: more are only
 * counted); `partyListOf` checks them a slice at a time, so the routes' body
 * schemas document the JSON form and the validator leaves it alone (it took a 100,000-item body
 * in one piece).
 */
export function acceptPartyListBodies(scope: App, bodyLimit: number, limit: ItemsLimit): void {
  scope.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
    try {
      done(null, new CsvText(bodyText(body as Buffer, request.headers['content-type'])));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Parsed a slice at a time (a 32 MB body took 0.5 s in one piece); NUL characters and lone
  // surrogates are looked for item by item, with the rest of the checks.
  scope.removeContentTypeParser('application/json');
  const parse = scope.getDefaultJsonParser('error', 'error');
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit },
    async (request: FastifyRequest, body: Buffer) => {
      const text = bodyText(body, request.headers['content-type']);
      const parseValue = (piece: string) => {
        let parsed: unknown;
        let failure: Error | null = null;
        // Fastify's parser (it refuses prototype keys) answers at once.
        parse(request, piece, (error: Error | null, value?: unknown) => {
          failure = error;
          parsed = value;
        });
        if (failure) throw failure;
        return parsed;
      };
      const { value, itemCount } = await parseInSlices(text, parseValue, limit.max);
      return new ParsedJsonBody(value, text, itemCount);
    },
  );
  scope.setValidatorCompiler((route) => (route.httpPart === 'body' ? () => true : compileValidator(route)));
}

/**
 * The parties a body lists, in the JSON form whichever form they came in: a CSV read, a JSON body
 * checked against `jsonSchema` (the route's), each a slice at a time; at most `limit` items.
 */
export async function partyListOf(
  body: unknown,
  jsonSchema: TObject,
  limit: ItemsLimit,
): Promise<BatchSubmission> {
  if (body instanceof CsvText) return submissionFromCsv(body.text);
  if (body instanceof ParsedJsonBody) return checkedJsonPartyList(body, jsonSchema, limit);
  // No body (and so no content type): no parser ran.
  throw new ServiceError('validation-failed', 'The request body does not match the schema.', [
    { pointer: '/', detail: 'must be a JSON object or a CSV text' },
  ]);
}
