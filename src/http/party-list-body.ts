import { ServiceError } from '../errors.js';
import { type BatchSubmission, submissionFromCsv } from '../screening/batches/batch-input.js';
import { bodyText } from './body-text.js';
import type { App } from './context.js';

/**
 * Bodies listing many parties (a batch, an import of monitors): JSON `{items, options}` or a CSV
 * text. CSV bodies are read as text (in their declared charset) only in the scope given; everywhere
 * else a text/csv body is a 415.
 */
export function acceptCsvBodies(scope: App, bodyLimit: number): void {
  scope.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
    try {
      done(null, bodyText(body as Buffer, request.headers['content-type']));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** The parties a body lists, in the JSON form whichever form they came in. */
export async function partyListOf(body: BatchSubmission | string | undefined): Promise<BatchSubmission> {
  // A schema per content type validates nothing when there is no body (and so no content type).
  if (body === undefined) {
    throw new ServiceError('validation-failed', 'The request body does not match the schema.', [
      { pointer: '/', detail: 'must be a JSON object or a CSV text' },
    ]);
  }
  return typeof body === 'string' ? submissionFromCsv(body) : body;
}
