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
  const children = unionChildren(all);
  const render = (i: number): FieldError[] =>
    isUnion(all[i]!) ? unionErrors(all, i, children.get(i) ?? [], render) : [fieldError(all[i]!)];
  return (children.get(-1) ?? []).flatMap(render);
}

function isUnion(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

/** Whether `error` is one of the branch errors of `union`: within its schema and its value. */
function holds(union: ErrorObject, error: ErrorObject): boolean {
  return (
    error.schemaPath.startsWith(`${union.schemaPath}/`) &&
    (error.instancePath === union.instancePath || error.instancePath.startsWith(`${union.instancePath}/`))
  );
}

/**
 * The errors of each union error, by its index (-1: those of no union), in order. Ajv writes a
 * union's error right after those of its branches, nested unions' included: read backwards, each
 * error belongs to the innermost union still open that holds it. One pass, so that a batch of
 * thousands of bad items costs no more than their errors (the unions of an array's items share
 * one schema path, and are told apart by their values' paths).
 */
function unionChildren(all: readonly ErrorObject[]): Map<number, number[]> {
  const children = new Map<number, number[]>();
  const open: number[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const error = all[i]!;
    while (open.length > 0 && !holds(all[open[open.length - 1]!]!, error)) open.pop();
    const parent = open.length > 0 ? open[open.length - 1]! : -1;
    const list = children.get(parent);
    if (list) list.push(i);
    else children.set(parent, [i]);
    if (isUnion(error)) open.push(i);
  }
  for (const list of children.values()) list.reverse();
  return children;
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
  const atUnion = (error: ErrorObject) => error.instancePath === union.instancePath;
  const branches = new Map<string, ErrorObject[]>();
  const branchOf = new Map<number, string>();
  for (const k of children) {
    const branch = all[k]!.schemaPath.slice(union.schemaPath.length + 1).split('/')[0]!;
    branchOf.set(k, branch);
    branches.set(branch, [...(branches.get(branch) ?? []), all[k]!]);
  }
  const constants = [...branches.values()].map((errors) =>
    errors.find((error) => error.keyword === 'const' && atUnion(error)),
  );
  if (constants.length > 0 && constants.every((error) => error !== undefined)) {
    return [{ pointer, detail: mustBeOneOf(constants.map((error) => error!.params.allowedValue)) }];
  }
  // The branch of the value's own JSON type (an object for an object-or-null) says what is wrong.
  const fitting = [...branches].filter(
    ([, errors]) => !errors.some((error) => atUnion(error) && error.keyword === 'type'),
  );
  if (fitting.length === 1) return children.filter((k) => branchOf.get(k) === fitting[0]![0]).flatMap(render);
  const details = children
    .filter((k) => atUnion(all[k]!) && !['required', 'additionalProperties'].includes(all[k]!.keyword))
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
