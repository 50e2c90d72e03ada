import type { EntityKind, ListEntity, NameType } from '../list-entity.js';
import { parseBirthDate, parseFullDate } from './dates.js';
import {
  addCountryCode,
  addName,
  addPlaceOfBirth,
  joinName,
  newEntity,
  parseGender,
  surnameFirstName,
} from './entity-draft.js';
import { type FtmEntity, ftmCountry, matchableKind, references, texts } from './ftm-entity.js';
import type { FtmGraph, FtmTarget } from './ftm-graph.js';
import { addIdentifiers } from './ftm-identifiers.js';
import { positionsHeld } from './ftm-positions.js';
import { pushUnique } from './text.js';

const OPENSANCTIONS_ENTITY_PAGE = 'https://www.opensanctions.org/entities/';

/**
 * OpenSanctions' enrichment (`ext_`) and annotation (`ann_`) datasets add facts to entities that
 * other datasets list; they are never the reason an entity is listed, so they do not name it.
 */
const SUPPORTING_DATASET = /^(ext|ann)_/;

/** The name properties after `name`, in the order their names are added. */
const ALIAS_PROPERTIES: ReadonlyArray<readonly [string, NameType]> = [
  ['alias', 'aka'],
  ['previousName', 'fka'],
  ['weakAlias', 'weak_aka'],
];

const NAME_PART_PROPERTIES = ['firstName', 'secondName', 'middleName', 'lastName', 'fatherName'];

/** Countries linked to the entity (address, registration, flag) and, apart, its nationalities. */
const COUNTRY_PROPERTIES = ['country', 'jurisdiction', 'mainCountry', 'flag'];
const NATIONALITY_PROPERTIES = ['nationality', 'citizenship'];

/**
 * One FtM target in the common entity model, or `undefined` for a target without any name (it
 * cannot be screened). `list` is the first dataset that lists the entity, upper-cased
 * ('US_OFAC_SDN', 'SA_WIKI_PEPS_V2'); topics, datasets and positions held are kept for the flag.
 */
export function toListEntity(target: FtmTarget, graph: FtmGraph, source: string): ListEntity | undefined {
  const { entity, raw } = target;
  const kind = matchableKind(entity.schema) ?? 'unknown';
  const out = newEntity(source, listName(entity.datasets), entity.id, kind, raw);
  addNames(out, entity, kind);
  if (out.names.length === 0) return undefined;
  addFacts(out, entity);
  addIdentifiers(out, entity, graph);
  addAddresses(out, entity, graph);
  out.programs = programs(entity, graph);
  out.topics = texts(entity, 'topics');
  out.datasets = [...entity.datasets];
  if (kind === 'person') {
    const positions = positionsHeld(entity, graph);
    if (positions.length > 0) out.positions = positions;
  }
  return out;
}

export function listName(datasets: readonly string[]): string {
  const listing = datasets.find((dataset) => !SUPPORTING_DATASET.test(dataset)) ?? datasets[0];
  return listing ? listing.toUpperCase() : 'OPENSANCTIONS';
}

// FtM marks no name as the main one; its caption is the name OpenSanctions displays, so it comes
// first when it is one of the names. Names written 'SURNAME, Given' (copied from OFAC) are put in
// reading order like every other list's, so they fold into the same name written the usual way.
function addNames(out: ListEntity, entity: FtmEntity, kind: EntityKind): void {
  const parts = namePartsOf(entity);
  const names = texts(entity, 'name').filter((name) => !parts.has(name.toLowerCase()));
  const aliases = texts(entity, 'alias');
  const caption = entity.caption?.toLowerCase();
  const isCaption = (name: string) => name.toLowerCase() === caption;
  const primary =
    names.find(isCaption) ??
    names[0] ??
    texts(entity, 'name')[0] ??
    joinName(texts(entity, 'firstName')[0], texts(entity, 'middleName')[0], texts(entity, 'lastName')[0]) ??
    aliases.find(isCaption) ??
    aliases[0];
  const add = (written: string | undefined, type: NameType) =>
    addName(out, kind === 'person' ? { ...surnameFirstName(written), type } : { full: written, type });
  add(primary, 'primary');
  for (const name of names) add(name, 'aka');
  for (const [property, type] of ALIAS_PROPERTIES) {
    for (const name of texts(entity, property)) add(name, type);
  }
}

/**
 * Wikidata-derived records sometimes file a person's given name and surname as names of their
 * own ('Sani Yaya', 'Sani', 'Yaya'). A single word that only repeats a name part is not a name
 * anyone is known by, and as an alias it would flag everyone called Sani.
 */
function namePartsOf(entity: FtmEntity): Set<string> {
  const parts = new Set<string>();
  for (const property of NAME_PART_PROPERTIES) {
    for (const part of texts(entity, property)) if (!/\s/.test(part)) parts.add(part.toLowerCase());
  }
  return parts;
}

function addFacts(out: ListEntity, entity: FtmEntity): void {
  for (const property of COUNTRY_PROPERTIES) {
    for (const value of texts(entity, property)) addCountryCode(out, ftmCountry(value));
  }
  for (const property of NATIONALITY_PROPERTIES) {
    for (const value of texts(entity, property)) addCountryCode(out, ftmCountry(value), true);
  }
  for (const value of texts(entity, 'birthDate')) pushUnique(out.birth_dates, parseBirthDate(value));
  for (const place of texts(entity, 'birthPlace')) addPlaceOfBirth(out, place);
  const gender = parseGender(texts(entity, 'gender')[0]);
  if (gender) out.gender = gender;
  const notes = texts(entity, 'notes');
  if (notes.length > 0) out.remarks = notes.join(' ');
  const listedOn = parseFullDate(entity.firstSeen);
  if (listedOn) out.listed_on = listedOn;
  out.url = texts(entity, 'sourceUrl')[0] ?? `${OPENSANCTIONS_ENTITY_PAGE}${encodeURIComponent(entity.id)}/`;
}

function addAddresses(out: ListEntity, entity: FtmEntity, graph: FtmGraph): void {
  const add = (full: string | undefined, city?: string, country?: string) => {
    if (!full || out.addresses.some((a) => a.full.toLowerCase() === full.toLowerCase())) return;
    const code = country ? ftmCountry(country) : undefined;
    out.addresses.push({ full, ...(city && { city }), ...(code && { country: code }) });
    pushUnique(out.countries, code);
  };
  for (const id of references(entity, 'addressEntity')) {
    const address = graph.entity(id);
    if (address?.schema !== 'Address') continue;
    const part = (property: string) => texts(address, property)[0];
    const pieces = ['street', 'postalCode', 'city', 'region', 'country'].map(part).filter(Boolean);
    add(part('full') ?? (pieces.length > 0 ? pieces.join(', ') : undefined), part('city'), part('country'));
  }
  for (const full of texts(entity, 'address')) add(full);
}

// A programme is named by its id where the source gives one ('US-RUSHAR'), else by its title.
function programs(entity: FtmEntity, graph: FtmGraph): string[] {
  const out = texts(entity, 'programId');
  for (const sanction of graph.adjacent(entity.id, 'Sanction')) {
    const ids = texts(sanction, 'programId');
    for (const program of ids.length > 0 ? ids : texts(sanction, 'program').slice(0, 1))
      pushUnique(out, program);
  }
  return out;
}
