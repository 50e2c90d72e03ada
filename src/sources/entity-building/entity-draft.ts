import type {
  EntityKind,
  EntityName,
  Gender,
  ListEntity,
  NameParts,
  NameType,
  RawRecord,
} from '../list-entity.js';
import { countryCode } from './countries.js';
import { detectScript } from './scripts.js';
import { clean, pushUnique } from './text.js';

export function newEntity(
  source: string,
  list: string,
  sourceId: string,
  kind: EntityKind,
  raw: RawRecord,
): ListEntity {
  return {
    source,
    list,
    source_id: sourceId,
    kind,
    names: [],
    programs: [],
    countries: [],
    birth_dates: [],
    identifiers: [],
    addresses: [],
    raw,
  };
}

export interface NameInput {
  full?: string | undefined;
  type: NameType;
  parts?: NameParts;
  lang?: string;
}

/**
 * Adds a name unless the entity already has it (compared case-insensitively): lists repeat a name
 * across languages and rows, and a duplicate would only inflate the index. The first name added
 * is the primary one, so callers add it first.
 */
export function addName(entity: ListEntity, input: NameInput): EntityName | undefined {
  const full = clean(input.full);
  if (!full) return undefined;
  const folded = full.toLowerCase();
  if (entity.names.some((name) => name.full.toLowerCase() === folded)) return undefined;
  const name: EntityName = { full, type: input.type };
  const parts = cleanParts(input.parts);
  if (parts) name.parts = parts;
  const script = detectScript(full);
  if (script) name.script = script;
  if (input.lang) name.lang = input.lang;
  entity.names.push(name);
  return name;
}

function cleanParts(parts: NameParts | undefined): NameParts | undefined {
  if (!parts) return undefined;
  const out: NameParts = {};
  const given = clean(parts.given);
  const middle = clean(parts.middle);
  const family = clean(parts.family);
  if (given) out.given = given;
  if (middle) out.middle = middle;
  if (family) out.family = family;
  return given || middle || family ? out : undefined;
}

/**
 * OFAC and the US lists write individuals as 'SURNAME, Given Names'. The name is turned into
 * reading order ('Given Names SURNAME') with its parts, so every list's names look alike to
 * matching; a name with no comma, or more than one, is kept as written.
 */
export function surnameFirstName(written: string | undefined): { full?: string; parts?: NameParts } {
  const text = clean(written);
  if (!text) return {};
  const pieces = text.split(',');
  if (pieces.length !== 2) return { full: text };
  const family = clean(pieces[0]);
  const given = clean(pieces[1]);
  if (!family || !given) return { full: text };
  return { full: `${given} ${family}`, parts: { given, family } };
}

/** Joins name pieces in reading order, skipping empty ones. */
export function joinName(...pieces: (string | undefined)[]): string | undefined {
  return clean(pieces.filter((piece) => piece && clean(piece)).join(' '));
}

/** Records a country (name or code) in `countries` and, for nationality, in `nationalities`. */
export function addCountry(entity: ListEntity, value: string | undefined, nationality = false): void {
  addCountryCode(entity, countryCode(value), nationality);
}

/** A country already written as a code: among the entity's countries, and its nationalities if one. */
export function addCountryCode(entity: ListEntity, code: string | undefined, nationality = false): void {
  if (!code) return;
  pushUnique(entity.countries, code);
  if (nationality) {
    entity.nationalities ??= [];
    pushUnique(entity.nationalities, code);
  }
}

export function addPlaceOfBirth(entity: ListEntity, value: string | undefined): void {
  const place = clean(value);
  if (!place) return;
  entity.places_of_birth ??= [];
  pushUnique(entity.places_of_birth, place);
}

export function parseGender(value: string | undefined): Gender | undefined {
  const text = clean(value)?.toLowerCase();
  if (!text) return undefined;
  if (text === 'male' || text === 'm') return 'male';
  if (text === 'female' || text === 'f') return 'female';
  return text === 'other' ? 'other' : undefined;
}
