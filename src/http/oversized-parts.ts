import type { FieldError } from '../errors.js';

/** The parts of a JSON schema this check reads (TypeBox schemas are plain JSON schemas). */
interface BoundedSchema {
  type?: unknown;
  maxItems?: number;
  items?: BoundedSchema;
  properties?: Record<string, BoundedSchema>;
  additionalProperties?: unknown;
}

const NONE: readonly FieldError[] = [];

/**
 * The arrays of `value` longer than `schema` allows, and its closed objects with more fields than
 * the schema knows, each reported once and not looked into. The validator (every error of every
 * element) would instead report each element or field: one item of a list of parties can hold
 * millions of them within the body limit, and 16 million errors took a minute to list. Loops, not
 * callbacks: it runs once per item of a 100,000-item list.
 */
export function oversizedParts(
  schema: BoundedSchema,
  value: unknown,
  pointer: string,
): readonly FieldError[] {
  if (Array.isArray(value)) {
    if (schema.type !== 'array') return NONE;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      return [{ pointer: pointer || '/', detail: `must NOT have more than ${schema.maxItems} items` }];
    }
    if (!schema.items) return NONE;
    const found: FieldError[] = [];
    for (let i = 0; i < value.length; i++)
      found.push(...oversizedParts(schema.items, value[i], `${pointer}/${i}`));
    return found;
  }
  if (value === null || typeof value !== 'object' || schema.type !== 'object' || !schema.properties)
    return NONE;
  const known = schema.properties;
  const fields = Object.keys(value);
  if (schema.additionalProperties === false && fields.length > Object.keys(known).length) {
    return [
      {
        pointer: pointer || '/',
        detail: `has ${fields.length} fields; only ${Object.keys(known).join(', ')} are known`,
      },
    ];
  }
  let found: readonly FieldError[] = NONE;
  for (const field of fields) {
    const inner = Object.hasOwn(known, field) ? known[field] : undefined;
    // Only arrays and objects can be oversized: a string or number field needs no look.
    const fieldValue = (value as Record<string, unknown>)[field];
    if (!inner || fieldValue === null || typeof fieldValue !== 'object') continue;
    const parts = oversizedParts(inner, fieldValue, `${pointer}/${field}`);
    if (parts.length > 0) found = [...found, ...parts];
  }
  return found;
}
