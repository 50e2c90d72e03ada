import type { EntityKind } from '../list-entity.js';
import { countryCode } from './countries.js';
import { clean, pushUnique } from './text.js';

/**
 * A FollowTheMoney entity as the parser reads it. Property values are always lists (some exports
 * write a single value as a bare string), empty values are dropped, and a value may be a whole
 * nested entity (the nested export, `targets.nested.json`) instead of an entity id.
 */
export interface FtmEntity {
  id: string;
  schema: string;
  caption: string | undefined;
  /** A Map, so that a property called `__proto__` in hostile input stays an ordinary key. */
  properties: ReadonlyMap<string, readonly FtmValue[]>;
  datasets: string[];
  firstSeen: string | undefined;
  lastSeen: string | undefined;
  /** `undefined` when the export does not say (every line of the nested export is a target). */
  target: boolean | undefined;
}

export type FtmValue = string | FtmEntity;

/**
 * How deep nested entities are read. A target's adjacent entities sit one or two levels down
 * (Person > Occupancy > Position); anything deeper is not used and only costs memory.
 */
export const FTM_MAX_NESTING_DEPTH = 4;

/** The schemata that can be screened by name, and the entity kind each becomes. */
const MATCHABLE_SCHEMATA: ReadonlyMap<string, EntityKind> = new Map([
  ['Person', 'person'],
  ['Organization', 'organization'],
  ['Company', 'organization'],
  ['LegalEntity', 'organization'],
  ['PublicBody', 'organization'],
  ['Vessel', 'vessel'],
  ['Airplane', 'aircraft'],
]);

export function matchableKind(schema: string): EntityKind | undefined {
  return MATCHABLE_SCHEMATA.get(schema);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads one FtM entity, or `undefined` when the value does not have an entity's shape. */
export function readFtmEntity(value: unknown, depth = 0): FtmEntity | undefined {
  if (!isObject(value) || !isObject(value.properties)) return undefined;
  const id = typeof value.id === 'string' ? clean(value.id) : undefined;
  const schema = typeof value.schema === 'string' ? clean(value.schema) : undefined;
  if (!id || !schema) return undefined;
  const properties = new Map<string, FtmValue[]>();
  for (const [name, raw] of Object.entries(value.properties)) {
    const values = readValues(raw, depth);
    if (values.length > 0) properties.set(name, values);
  }
  return {
    id,
    schema,
    caption: typeof value.caption === 'string' ? clean(value.caption) : undefined,
    properties,
    datasets: Array.isArray(value.datasets) ? value.datasets.filter((d) => typeof d === 'string') : [],
    firstSeen: typeof value.first_seen === 'string' ? value.first_seen : undefined,
    lastSeen: typeof value.last_seen === 'string' ? value.last_seen : undefined,
    target: typeof value.target === 'boolean' ? value.target : undefined,
  };
}

function readValues(raw: unknown, depth: number): FtmValue[] {
  const values: FtmValue[] = [];
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    if (typeof item === 'string' || typeof item === 'number') {
      const text = clean(String(item));
      if (text) values.push(text);
    } else if (isObject(item) && depth < FTM_MAX_NESTING_DEPTH) {
      const nested = readFtmEntity(item, depth + 1);
      if (nested) values.push(nested);
    }
  }
  return values;
}

/** The text values of a property (nested entities left out). */
export function texts(entity: FtmEntity, property: string): string[] {
  const out: string[] = [];
  for (const value of entity.properties.get(property) ?? []) {
    if (typeof value === 'string') pushUnique(out, value);
  }
  return out;
}

/** The ids a property refers to, whether written as ids (flat export) or as nested entities. */
export function references(entity: FtmEntity, property: string): string[] {
  return (entity.properties.get(property) ?? []).map((value) =>
    typeof value === 'string' ? value : value.id,
  );
}

/** Every entity nested in any property, with the property it sits in. */
export function* nestedEntities(entity: FtmEntity): Generator<[string, FtmEntity]> {
  for (const [property, values] of entity.properties) {
    for (const value of values) if (typeof value !== 'string') yield [property, value];
  }
}

/**
 * A country as FtM writes it: ISO 3166-1 alpha-2 in lower case ('ru'), sometimes upper case or,
 * in hand-made data, a country name. Codes are upper-cased like every other list's.
 */
export function ftmCountry(value: string): string | undefined {
  return /^[a-z]{2}$/i.test(value) ? value.toUpperCase() : countryCode(value);
}
