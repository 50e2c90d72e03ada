import { type FtmEntity, references, texts } from './ftm-entity.js';

/**
 * The FtM schemata that link two parties, with the property naming each end: `from` owns, is
 * related to or directs `to`. Kept apart from the parties (a relation is no screening target):
 * ownership chains (the 50% rule) and relatives and associates are read from them.
 */
const RELATION_ENDS: ReadonlyMap<string, readonly [string, string]> = new Map([
  ['Ownership', ['owner', 'asset']],
  ['Family', ['person', 'relative']],
  ['Associate', ['person', 'associate']],
  ['Directorship', ['director', 'organization']],
  ['UnknownLink', ['subject', 'object']],
]);

export function isRelationSchema(schema: string): boolean {
  return RELATION_ENDS.has(schema);
}

/** One link between two parties, as the export states it (shares and dates as written). */
export interface FtmRelation {
  id: string;
  schema: string;
  from: string;
  to: string;
  /** The kind of link in words ('parent', 'director', 'beneficial owner'). */
  role?: string[];
  /** Ownership: the share held, as written ('50', '25-50', '10.5%'). */
  percentage?: string[];
  startDate?: string[];
  endDate?: string[];
  datasets: string[];
}

/** The relation an entity states, or undefined when it is none or lacks an end. */
export function ftmRelation(entity: FtmEntity): FtmRelation | undefined {
  const ends = RELATION_ENDS.get(entity.schema);
  if (!ends) return undefined;
  const from = references(entity, ends[0])[0];
  const to = references(entity, ends[1])[0];
  if (!from || !to) return undefined;
  const relation: FtmRelation = {
    id: entity.id,
    schema: entity.schema,
    from,
    to,
    datasets: [...entity.datasets],
  };
  const role = [...texts(entity, 'role'), ...texts(entity, 'relationship')];
  if (role.length > 0) relation.role = role;
  for (const property of ['percentage', 'startDate', 'endDate'] as const) {
    const values = texts(entity, property);
    if (values.length > 0) relation[property] = values;
  }
  return relation;
}
