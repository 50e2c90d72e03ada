import type { FactIdentifier } from '../../matching/index.js';
import { identifierKindsMeet, normaliseIdentifier } from '../../matching/index.js';
import type { ListEntity } from '../list-entity.js';

/**
 * A list version's records by identifier, for screenings that give one (a passport, an IMO number,
 * a wallet address): built the first time such a screening asks that version, since most never
 * do, and kept while the version is in service.
 */
export class IdentifierIndex {
  /** `kind:value` (the record's kind, its value normalised) -> source ids. */
  private readonly byKind = new Map<string, string[]>();
  /** The normalised value alone, for a query identifier of kind `other`. */
  private readonly byValue = new Map<string, string[]>();

  constructor(entities: Iterable<ListEntity>) {
    for (const entity of entities) {
      for (const id of entity.identifiers) {
        add(this.byKind, `${id.type}:${normaliseIdentifier(id.type, id.value)}`, entity.source_id);
        add(this.byValue, normaliseIdentifier('other', id.value), entity.source_id);
      }
    }
  }

  /** Source ids of the records that may hold one of these identifiers (the caller checks countries). */
  candidates(identifiers: readonly FactIdentifier[]): string[] {
    const found = new Set<string>();
    for (const id of identifiers) {
      if (id.type === 'other') {
        for (const sourceId of this.byValue.get(normaliseIdentifier('other', id.value)) ?? [])
          found.add(sourceId);
        continue;
      }
      for (const recordKind of RECORD_KINDS) {
        if (!identifierKindsMeet(id.type, recordKind)) continue;
        const key = `${recordKind}:${normaliseIdentifier(recordKind, id.value)}`;
        for (const sourceId of this.byKind.get(key) ?? []) found.add(sourceId);
      }
    }
    return [...found];
  }
}

/** The entity model's identifier kinds that a query identifier can meet. */
const RECORD_KINDS = [
  'passport',
  'national_id',
  'tax_id',
  'registration_number',
  'lei',
  'swift_bic',
  'imo',
  'mmsi',
  'call_sign',
  'aircraft_tail_number',
  'aircraft_serial',
  'crypto_address',
] as const;

function add(map: Map<string, string[]>, key: string, sourceId: string): void {
  const ids = map.get(key);
  if (!ids) map.set(key, [sourceId]);
  else if (!ids.includes(sourceId)) ids.push(sourceId);
}
