import { isObject, matchableKind } from '../../entity-building/ftm-entity.js';
import { BY_ID_SCHEMATA, OWNER_PROPERTY } from '../../entity-building/ftm-graph.js';
import { isRelationSchema } from '../../entity-building/ftm-relations.js';
import { clean } from '../../entity-building/text.js';

/** What the first pass needs of a line, read without building the whole entity. */
export type FtmLineKind =
  | { kind: 'target'; id: string }
  | { kind: 'by_id'; id: string }
  | { kind: 'adjacent'; owners: string[] }
  | { kind: 'relation' }
  | { kind: 'other' }
  | { kind: 'not_entity' };

/**
 * Sorts one parsed line of an FtM export: a target the service screens, an entity targets refer
 * to by id, an adjacent entity belonging to targets (with their ids), a relation between two
 * parties, another entity the join does not use, or not an entity at all. Ids are cleaned as `readFtmEntity` cleans them, so the
 * keys of the join are the ids the second pass reads.
 */
export function ftmLineKind(value: unknown): FtmLineKind {
  if (!isObject(value) || !isObject(value.properties)) return { kind: 'not_entity' };
  const id = typeof value.id === 'string' ? clean(value.id) : undefined;
  const schema = typeof value.schema === 'string' ? clean(value.schema) : undefined;
  if (!id || !schema) return { kind: 'not_entity' };
  if (matchableKind(schema) && value.target !== false) return { kind: 'target', id };
  if (BY_ID_SCHEMATA.has(schema)) return { kind: 'by_id', id };
  if (isRelationSchema(schema)) return { kind: 'relation' };
  const property = OWNER_PROPERTY.get(schema);
  if (property === undefined) return { kind: 'other' };
  const raw = value.properties[property];
  const owners: string[] = [];
  for (const owner of Array.isArray(raw) ? raw : [raw]) {
    const written =
      typeof owner === 'string' || typeof owner === 'number'
        ? String(owner)
        : isObject(owner)
          ? owner.id
          : undefined;
    const ownerId = typeof written === 'string' ? clean(written) : undefined;
    if (ownerId) owners.push(ownerId);
  }
  return owners.length > 0 ? { kind: 'adjacent', owners } : { kind: 'other' };
}
