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
 * matches no branch of a union is one item, not one per branch and a "must match a schema in
 * anyOf": the allowed values when the branches are constants (`must be one of person, ...`), the
 * errors of the one branch its JSON type fits (an object's fields, a number's bounds), or else the
 * branches' own messages joined.
 */
export function toFieldErrors(errors: FastifySchemaValidationError[]): FieldError[] {
  const all = errors as unknown as ErrorObject[];
  const parent = all.map((_, i) => unionOf(all, i));
  const childrenOf = (union: number) => all.flatMap((_, k) => (parent[k] === union ? [k] : []));
  const render = (i: number): FieldError[] =>
    isUnion(all[i]!) ? unionErrors(all, i, childrenOf(i), render) : [fieldError(all[i]!)];
  return all.flatMap((_, i) => (parent[i] === -1 ? render(i) : []));
}

function isUnion(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

/**
 * The union error that error `i` is a branch error of, or -1: ajv writes a union's error right after
 * those of its branches, so it is the nearest union after `i` whose schema and value hold it (the
 * unions of an array's items share one schema path).
 */
function unionOf(all: readonly ErrorObject[], i: number): number {
  const error = all[i]!;
  for (let j = i + 1; j < all.length; j++) {
    const union = all[j]!;
    if (
      isUnion(union) &&
      error.schemaPath.startsWith(`${union.schemaPath}/`) &&
      (error.instancePath === union.instancePath || error.instancePath.startsWith(`${union.instancePath}/`))
    )
      return j;
  }
  return -1;
}

function unionErrors(
  all: readonly ErrorObject[],
  u: number,
  children: readonly number[],
  render: (i: number) => FieldError[],
): FieldError[] {
  const union = all[u]!;
  const pointer = union.instancePath || '/';
  if (union.keyword === 'oneOf' && (union.params as { passingSchemas?: unknown }).passingSchemas) {
    return [{ pointer, detail: 'matches more than one of the allowed forms' }];
  }
  const branches = new Map<string, number[]>();
  for (const k of children) {
    const branch = all[k]!.schemaPath.slice(union.schemaPath.length + 1).split('/')[0]!;
    branches.set(branch, [...(branches.get(branch) ?? []), k]);
  }
  const atUnion = (k: number) => all[k]!.instancePath === union.instancePath;
  const constants = [...branches.values()].map((ks) =>
    ks
      .map((k) => all[k]!)
      .find((error) => error.keyword === 'const' && error.instancePath === union.instancePath),
  );
  if (constants.length > 0 && constants.every((error) => error !== undefined)) {
    return [{ pointer, detail: mustBeOneOf(constants.map((error) => error!.params.allowedValue)) }];
  }
  // The branch of the value's own JSON type (an object for an object-or-null) says what is wrong.
  const fitting = [...branches.values()].filter(
    (ks) => !ks.some((k) => atUnion(k) && all[k]!.keyword === 'type'),
  );
  if (fitting.length === 1) return fitting[0]!.flatMap(render);
  const details = children
    .filter((k) => atUnion(k) && !['required', 'additionalProperties'].includes(all[k]!.keyword))
    .map((k) => render(k)[0]?.detail ?? '');
  const distinct = [...new Set(details.filter((detail) => detail !== ''))];
  return [
    { pointer, detail: distinct.length > 0 ? distinct.join(', or ') : 'is not one of the allowed forms' },
  ];
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
  if (error.keyword === 'const')
    return { pointer: base || '/', detail: `must be ${valueName(params.allowedValue)}` };
  return { pointer: base || '/', detail: error.message ?? 'is not valid' };
}

function mustBeOneOf(values: readonly unknown[]): string {
  return `must be one of ${values.map(valueName).join(', ')}`;
}

function valueName(value: unknown): string {
  return value === null ? 'null' : String(value);
}
