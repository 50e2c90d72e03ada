import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify';
import type { FieldError } from '../errors.js';

/**
 * Two validators: request bodies are checked strictly (no type coercion, unknown fields are
 * errors, never silently removed), while query strings and path parameters, which are text by
 * nature, are coerced to the declared types.
 */
function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    removeAdditional: false,
    useDefaults: true,
    ...options,
  });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

const bodyAjv = createAjv({ coerceTypes: false });
const parameterAjv = createAjv({ coerceTypes: 'array' });

/**
 * A route's validator, compiled on its first use rather than when the route is registered: the
 * routes' schemas were compiled one after another before the service could listen. A request
 * pays its own route's compilation once (a few milliseconds).
 */
export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }) {
  const ajv = httpPart === 'body' ? bodyAjv : parameterAjv;
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= ajv.compile(schema);
    const valid = compiled(data) as boolean;
    validate.errors = compiled.errors;
    return valid;
  };
  validate.errors = undefined as ErrorObject[] | null | undefined;
  return validate;
}

/**
 * Turns validator errors into `{pointer, detail}` items that name the offending field. A value that
 * matches none of a union's branches (a field of a few allowed values, or a number or null) is one
 * item naming what is allowed, not one "must be equal to constant" per branch and a "must match a
 * schema in anyOf".
 */
export function toFieldErrors(errors: FastifySchemaValidationError[]): FieldError[] {
  const all = errors as unknown as ErrorObject[];
  const unions = all.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const branchOf = (error: ErrorObject) =>
    unions.find((union) => union !== error && error.schemaPath.startsWith(`${union.schemaPath}/`));
  const items: FieldError[] = [];
  for (const error of all) {
    if (branchOf(error)) continue;
    if (unions.includes(error)) {
      items.push(
        unionError(
          error,
          all.filter((other) => branchOf(other) === error),
        ),
      );
      continue;
    }
    items.push(fieldError(error));
  }
  return items;
}

function fieldError(error: ErrorObject): FieldError {
  const params = error.params as Record<string, unknown>;
  const base = error.instancePath ?? '';
  if (error.keyword === 'required') {
    return { pointer: `${base}/${String(params.missingProperty)}`, detail: 'is required' };
  }
  if (error.keyword === 'additionalProperties') {
    return { pointer: `${base}/${String(params.additionalProperty)}`, detail: 'is not a known field' };
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return { pointer: base || '/', detail: mustBeOneOf(params.allowedValues) };
  }
  return { pointer: base || '/', detail: error.message ?? 'is not valid' };
}

/** One item for a value no branch of a union accepted, from its branches' own errors. */
function unionError(union: ErrorObject, branches: ErrorObject[]): FieldError {
  const pointer = union.instancePath || '/';
  const own = branches.filter((error) => error.instancePath === union.instancePath);
  const constants = own.filter((error) => error.keyword === 'const');
  if (constants.length > 0 && constants.length === own.length) {
    const allowed = constants.map((error) => (error.params as { allowedValue: unknown }).allowedValue);
    return { pointer, detail: mustBeOneOf(allowed) };
  }
  // A branch whose errors are deeper (an object's fields) says too little alone: those are left out.
  const details = [...new Set(own.map((error) => fieldError(error).detail))];
  return { pointer, detail: details.length > 0 ? details.join(', or ') : 'is not one of the allowed forms' };
}

function mustBeOneOf(values: readonly unknown[]): string {
  return `must be one of ${values.map((value) => (value === null ? 'null' : String(value))).join(', ')}`;
}
