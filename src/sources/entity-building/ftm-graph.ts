import type { RawRecord } from '../list-entity.js';
import { type FtmEntity, matchableKind, nestedEntities, references } from './ftm-entity.js';

/** A target as read, with the record it came from (kept as the entity's `raw`). */
export interface FtmTarget {
  entity: FtmEntity;
  raw: RawRecord;
}

/**
 * The property by which an adjacent entity points at the target it belongs to. The nested export
 * drops that back-reference when it nests the entity inside its target, so it is restored from
 * the nesting (an Occupancy inside a Person's `positionOccupancies` is held by that Person).
 */
export const OWNER_PROPERTY: ReadonlyMap<string, string> = new Map([
  ['Occupancy', 'holder'],
  ['Sanction', 'entity'],
  ['Passport', 'holder'],
  ['Identification', 'holder'],
]);

/** Entities looked up by their own id when a target or an Occupancy refers to them. */
export const BY_ID_SCHEMATA: ReadonlySet<string> = new Set(['Position', 'Address']);
/**
 * The properties by which the mapping looks entities up by id (`entity`): a target's
 * `addressEntity`, an Occupancy's `post` and its `holder`s (the other holders of a merged
 * Occupancy name its office, see ftm-positions.ts).
 */
export const BY_ID_REFERENCES: readonly string[] = ['addressEntity', 'post', 'holder'];

/**
 * The part of an FtM export the parser joins: the targets, and the adjacent entities that carry
 * facts about them (positions held, sanctions, addresses, identity documents). The flat export
 * (`entities.ftm.json`) writes them as separate lines that refer to each other by id, in any
 * order, so nothing can be mapped before the whole file is read; the nested export writes them
 * inside their target and is flattened into the same tables, so one join serves both.
 */
export class FtmGraph {
  readonly targets: FtmTarget[] = [];
  /** Lines whose id was already read (a target repeated would break the key's uniqueness). */
  duplicates = 0;
  private readonly seen = new Set<string>();
  private readonly targetsById = new Map<string, FtmEntity>();
  private readonly byId = new Map<string, FtmEntity>();
  private readonly byOwner = new Map<string, FtmEntity[]>();

  /** Adds one line's entity and everything nested in it. */
  add(entity: FtmEntity, raw: RawRecord): void {
    if (this.seen.has(entity.id)) {
      this.duplicates++;
      return;
    }
    this.seen.add(entity.id);
    // Nested entities are never targets themselves: the nested export lists each target on its
    // own line, and what is nested inside it is context (relatives, owners, positions).
    if (matchableKind(entity.schema) && entity.target !== false) {
      this.targets.push({ entity, raw });
      this.targetsById.set(entity.id, entity);
    }
    this.index(entity, undefined);
  }

  /** The entity with this id, when it is one the join keeps (a target, a Position, an Address). */
  entity(id: string): FtmEntity | undefined {
    return this.byId.get(id) ?? this.targetsById.get(id);
  }

  /** The adjacent entities of one schema that belong to `ownerId` (its Occupancies, Sanctions, ...). */
  adjacent(ownerId: string, schema: string): FtmEntity[] {
    return (this.byOwner.get(ownerId) ?? []).filter((entity) => entity.schema === schema);
  }

  private index(entity: FtmEntity, parent: FtmEntity | undefined): void {
    if (BY_ID_SCHEMATA.has(entity.schema) && !this.byId.has(entity.id)) this.byId.set(entity.id, entity);
    const ownerProperty = OWNER_PROPERTY.get(entity.schema);
    if (ownerProperty !== undefined) {
      const owners = references(entity, ownerProperty);
      if (owners.length === 0 && parent) owners.push(parent.id);
      for (const owner of owners) this.own(owner, entity);
    }
    for (const [, nested] of nestedEntities(entity)) this.index(nested, entity);
  }

  private own(ownerId: string, entity: FtmEntity): void {
    const owned = this.byOwner.get(ownerId);
    if (!owned) this.byOwner.set(ownerId, [entity]);
    else if (!owned.some((e) => e.id === entity.id)) owned.push(entity);
  }
}
