import type { FastifySchemaValidationError } from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { compileValidator, toFieldErrors } from '../../../src/http/validation.js';

const Kind = Type.Union([Type.Literal('person'), Type.Literal('vessel')]);
const Body = Type.Object(
  {
    type: Type.Optional(Kind),
    identifiers: Type.Optional(Type.Array(Type.Object({ type: Kind }, { additionalProperties: false }))),
    rate: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    kinds: Type.Optional(Type.Array(Type.Union([Kind, Type.Null()]))),
    refresh: Type.Optional(
      Type.Union([
        Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

/** The items a request body gets, validated as the routes validate bodies. */
function errorsOf(body: unknown) {
  const validate = compileValidator({ schema: Body, httpPart: 'body' });
  expect(validate(body)).toBe(false);
  return toFieldErrors(validate.errors as unknown as FastifySchemaValidationError[]);
}

describe('validation errors as one item per field', () => {
  it('names the allowed values of a field that takes a few, whatever the JSON type of the value', () => {
    const allowed = 'must be one of person, vessel';
    expect(errorsOf({ type: 'human' })).toEqual([{ pointer: '/type', detail: allowed }]);
    expect(errorsOf({ type: 5 })).toEqual([{ pointer: '/type', detail: allowed }]);
    expect(errorsOf({ type: null })).toEqual([{ pointer: '/type', detail: allowed }]);
  });

  it('says what is allowed for every bad item of an array, not only the first', () => {
    expect(errorsOf({ identifiers: [{ type: 'shoe' }, { type: 'person' }, { type: 'boot' }] })).toEqual([
      { pointer: '/identifiers/0/type', detail: 'must be one of person, vessel' },
      { pointer: '/identifiers/2/type', detail: 'must be one of person, vessel' },
    ]);
  });

  it('gives the errors of the branch the value is of: an object’s fields, a number’s bounds', () => {
    expect(errorsOf({ refresh: { force: 'yes' } })).toEqual([
      { pointer: '/refresh/force', detail: 'must be boolean' },
    ]);
    expect(errorsOf({ refresh: { forse: true } })).toEqual([
      { pointer: '/refresh/forse', detail: 'is not a known field' },
    ]);
    expect(errorsOf({ rate: 0 })).toEqual([{ pointer: '/rate', detail: 'must be >= 1' }]);
    expect(errorsOf({ rate: 'many' })).toEqual([
      { pointer: '/rate', detail: 'must be integer, or must be null' },
    ]);
  });

  it('names the allowed values of a union inside a union, for every item', () => {
    expect(errorsOf({ kinds: ['human', null, 'person', 'robot'] })).toEqual([
      { pointer: '/kinds/0', detail: 'must be one of person, vessel' },
      { pointer: '/kinds/3', detail: 'must be one of person, vessel' },
    ]);
  });

  it('keeps the errors outside unions as they are', () => {
    expect(errorsOf({ type: 'person', colour: 'red', identifiers: [{}] })).toEqual([
      { pointer: '/colour', detail: 'is not a known field' },
      { pointer: '/identifiers/0/type', detail: 'is required' },
    ]);
  });
});
