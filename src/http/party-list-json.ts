import type { TObject, TSchema } from 'typebox';
import { type FieldError, ServiceError } from '../errors.js';
import {
  assertItemCount,
  type BatchSubmission,
  type ItemsLimit,
  itemsRefused,
} from '../screening/batches/batch-input.js';
import { mayHoldLoneSurrogates, wellFormedValue } from '../well-formed-json.js';
import { WorkSlices } from '../work-slices.js';
import { mayHoldNul, nulFields } from './json-body-parser.js';
import { oversizedParts } from './oversized-parts.js';
import { compileValidator, toFieldErrors } from './validation.js';

type Validator = ReturnType<typeof compileValidator>;

/**
 * A JSON list of parties as parsed, and what its text says is worth looking for in it: NUL
 * characters and lone surrogates can only be spelt as escapes, and a walk of every string of every
 * item for them cost as much as the schema's checks.
 */
export class ParsedJsonBody {
  readonly mayHoldNul: boolean;
  readonly mayHoldLoneSurrogates: boolean;
  /**
   * `itemCount`: how many items the body listed, when the parser stopped parsing them past the
   * limit (`parseInSlices`); else the parsed array's length says.
   */
  constructor(
    readonly value: unknown,
    text: string,
    readonly itemCount?: number,
  ) {
    this.mayHoldNul = mayHoldNul(text);
    this.mayHoldLoneSurrogates = mayHoldLoneSurrogates(text);
  }
}

/**
 * A JSON list of parties (`{items, options}`) checked against the schema its route documents, as
 * the route's validator would check it, but an item at a time, a slice at a time (`WorkSlices`):
 * the validator took the whole of a 100,000-item body in one piece, and the event loop with it.
 * What surrounds the items is checked first, then their count, then each item (its size, the
 * schema, NUL characters; lone surrogates made well-formed). A bad item refuses the whole list
 * as a CSV's bad rows do, naming every problem by item.
 */
export async function checkedJsonPartyList(
  parsed: ParsedJsonBody,
  schema: TObject,
  limit: ItemsLimit,
): Promise<BatchSubmission> {
  const { envelope, item } = validatorsOf(schema);
  const body = parsed.value;
  const problems = (check: SchemaCheck, value: unknown, at: string) =>
    problemsOf(check, value, at, parsed.mayHoldNul);
  const wellFormed = <T>(value: T): T => (parsed.mayHoldLoneSurrogates ? wellFormedValue(value) : value);
  const surrounding = isRecord(body) && Array.isArray(body.items) ? { ...body, items: [] } : body;
  const envelopeErrors = problems(envelope, surrounding, '');
  if (envelopeErrors.length > 0) {
    throw new ServiceError(
      'validation-failed',
      'The request body does not match the schema.',
      envelopeErrors,
    );
  }
  const { items, options } = body as { items: unknown[]; options?: BatchSubmission['options'] };
  assertItemCount(parsed.itemCount ?? items.length, limit);
  const slices = new WorkSlices();
  const errors: FieldError[] = [];
  for (let index = 0; index < items.length; index++) {
    if (slices.due()) await slices.pause();
    const found = problems(item, items[index], `/items/${index}`);
    if (found.length > 0) errors.push(...found);
    else items[index] = wellFormed(items[index]);
  }
  if (errors.length > 0) throw itemsRefused(errors, items.length);
  return {
    items: items as BatchSubmission['items'],
    ...(options !== undefined ? { options: wellFormed(options) } : {}),
  };
}

interface SchemaCheck {
  schema: TSchema;
  validate: Validator;
}

/** What is wrong with `value` by `check`'s schema, the pointers under `at`. */
function problemsOf(check: SchemaCheck, value: unknown, at: string, mayHoldNul: boolean): FieldError[] {
  const oversized = oversizedParts(check.schema, value, at);
  if (oversized.length > 0) return [...oversized];
  if (!check.validate(value)) {
    return toFieldErrors(check.validate.errors as never).map((error) => ({
      ...error,
      pointer: error.pointer === '/' ? at || '/' : at + error.pointer,
    }));
  }
  return mayHoldNul ? nulFields(value, at) : [];
}

const compiled = new WeakMap<TObject, { envelope: SchemaCheck; item: SchemaCheck }>();

/** The schema's validators: of everything but the items (an empty list in their place), and of one item. */
function validatorsOf(schema: TObject) {
  let found = compiled.get(schema);
  if (!found) {
    const itemsSchema = schema.properties.items as TSchema & { items: TSchema };
    const envelopeSchema = {
      ...schema,
      properties: { ...schema.properties, items: { type: 'array' } },
    } as unknown as TSchema;
    found = {
      envelope: {
        schema: envelopeSchema,
        validate: compileValidator({ schema: envelopeSchema, httpPart: 'body' }),
      },
      item: {
        schema: itemsSchema.items,
        validate: compileValidator({ schema: itemsSchema.items, httpPart: 'body' }),
      },
    };
    compiled.set(schema, found);
  }
  return found;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
