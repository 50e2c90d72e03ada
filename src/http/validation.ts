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

/** Turns validator errors into `{pointer, detail}` items that name the offending field. */
export function toFieldErrors(errors: FastifySchemaValidationError[]): FieldError[] {
  return errors.map((raw) => {
    const error = raw as unknown as ErrorObject;
    const params = error.params as Record<string, unknown>;
    const base = error.instancePath ?? '';
    if (error.keyword === 'required') {
      return { pointer: `${base}/${String(params.missingProperty)}`, detail: 'is required' };
    }
    if (error.keyword === 'additionalProperties') {
      return { pointer: `${base}/${String(params.additionalProperty)}`, detail: 'is not a known field' };
    }
    return { pointer: base || '/', detail: error.message ?? 'is not valid' };
  });
}
