import type { EntityKind, ListEntity, NameType } from './list-entity.js';

/** What the name index reads of an entity (the matching engine's `MatchableEntity`, structurally). */
export interface MatchableEntity {
  /** `${source}:${source_id}` */
  key: string;
  source: string;
  kind: EntityKind;
  names: { full: string; type: NameType; script?: string }[];
}

export function matchableEntity(entity: ListEntity): MatchableEntity {
  return {
    key: entityKey(entity),
    source: entity.source,
    kind: entity.kind,
    names: entity.names.map((name) =>
      name.script
        ? { full: name.full, type: name.type, script: name.script }
        : { full: name.full, type: name.type },
    ),
  };
}

export function entityKey(entity: Pick<ListEntity, 'source' | 'source_id'>): string {
  return `${entity.source}:${entity.source_id}`;
}

/** The `source_id` part of a key; a source id never contains a colon, a list's record id may. */
export function sourceIdOfKey(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}
