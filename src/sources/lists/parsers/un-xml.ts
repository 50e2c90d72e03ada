import { countryCode } from '../../entity-building/countries.js';
import { dateRange, parseBirthDate, parseDate, parseFullDate } from '../../entity-building/dates.js';
import {
  addCountry,
  addName,
  addPlaceOfBirth,
  joinName,
  newEntity,
  parseGender,
} from '../../entity-building/entity-draft.js';
import { clean, splitValues } from '../../entity-building/text.js';
import type { ListEntity, NameType } from '../../list-entity.js';
import { addImoNumbersFrom, listIdentifier } from './identifier-types.js';
import { resolveLimits } from './limits.js';
import { finishResult, pushEntity, requireFile } from './result.js';
import { openText } from './text-input.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';
import { childrenNamed, childText, elementToRaw, nestedTexts, type XmlElement } from './xml-element.js';
import { readXmlRecords } from './xml-records.js';

export const UN_SOURCE = 'un_sc';
export const UN_LIST = 'UN_CONSOLIDATED';
export const UN_FILE = 'consolidated.xml';

const ALIAS_QUALITY: Readonly<Record<string, NameType>> = {
  good: 'aka',
  'a.k.a.': 'aka',
  low: 'weak_aka',
  'f.k.a.': 'fka',
};

/** The UN Security Council Consolidated List XML (schema sc-sanctions.xsd). */
export async function parseUnXml(files: ListFiles, options: ListParseOptions = {}): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = { list: UN_SOURCE, file: UN_FILE };
  const text = openText(requireFile(files, UN_FILE, UN_SOURCE), ctx, limits, options.signal);
  const entities: ListEntity[] = [];
  let listDate: string | undefined;
  const records = await readXmlRecords(text, ctx, limits, {
    roots: ['CONSOLIDATED_LIST'],
    onRoot: (attrs) => {
      listDate = parseFullDate(attrs.dateGenerated);
    },
    isRecord: (name, depth) => depth === 2 && (name === 'INDIVIDUAL' || name === 'ENTITY'),
    onRecord: (el) => pushEntity(entities, toEntity(el), limits, ctx),
  });
  return finishResult({ source: UN_SOURCE, entities, records, listDate }, ctx);
}

function toEntity(el: XmlElement): ListEntity {
  const person = el.name === 'INDIVIDUAL';
  const id = childText(el, 'DATAID');
  if (!id) throw new Error(`${el.name} without DATAID`);
  const entity = newEntity(UN_SOURCE, UN_LIST, id, person ? 'person' : 'organization', elementToRaw(el));
  addPrimaryName(entity, el, person);
  for (const alias of childrenNamed(el, person ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS')) {
    const quality = clean(childText(alias, 'QUALITY'))?.toLowerCase() ?? '';
    addName(entity, { full: childText(alias, 'ALIAS_NAME'), type: ALIAS_QUALITY[quality] ?? 'aka' });
  }
  addName(entity, { full: childText(el, 'NAME_ORIGINAL_SCRIPT'), type: 'original_script' });
  entity.programs = splitValues(childText(el, 'UN_LIST_TYPE'));
  const listedOn = parseFullDate(childText(el, 'LISTED_ON'));
  if (listedOn) entity.listed_on = listedOn;
  const remarks = clean(childText(el, 'COMMENTS1'));
  if (remarks) entity.remarks = remarks;
  for (const nationality of nestedTexts(el, 'NATIONALITY', 'VALUE')) addCountry(entity, nationality, true);
  const gender = parseGender(childText(el, 'GENDER'));
  if (gender) entity.gender = gender;
  addBirthFacts(entity, el);
  addDocuments(entity, el);
  addImoNumbersFrom(entity, remarks, 'COMMENTS1');
  addAddresses(entity, childrenNamed(el, person ? 'INDIVIDUAL_ADDRESS' : 'ENTITY_ADDRESS'));
  return entity;
}

function addPrimaryName(entity: ListEntity, el: XmlElement, person: boolean): void {
  const pieces = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].map((tag) =>
    clean(childText(el, tag)),
  );
  const present = pieces.filter((piece): piece is string => Boolean(piece));
  if (!person || present.length < 2) {
    addName(entity, { full: joinName(...present), type: 'primary' });
    return;
  }
  // The UN writes names in reading order; the last piece is the family or clan name.
  const parts = { given: present[0], middle: joinName(...present.slice(1, -1)), family: present.at(-1) };
  addName(entity, { full: joinName(...present), type: 'primary', parts });
}

function addBirthFacts(entity: ListEntity, el: XmlElement): void {
  for (const dob of childrenNamed(el, 'INDIVIDUAL_DATE_OF_BIRTH')) {
    const date =
      parseDate(childText(dob, 'DATE')) ??
      parseDate(childText(dob, 'YEAR')) ??
      dateRange(parseDate(childText(dob, 'FROM_YEAR')), parseDate(childText(dob, 'TO_YEAR'))) ??
      parseBirthDate(childText(dob, 'NOTE'));
    if (date && !entity.birth_dates.includes(date)) entity.birth_dates.push(date);
  }
  for (const place of childrenNamed(el, 'INDIVIDUAL_PLACE_OF_BIRTH')) {
    const pieces = ['CITY', 'STATE_PROVINCE', 'COUNTRY'].map((tag) => childText(place, tag));
    addPlaceOfBirth(entity, pieces.filter(Boolean).join(', '));
  }
}

function addDocuments(entity: ListEntity, el: XmlElement): void {
  for (const doc of childrenNamed(el, 'INDIVIDUAL_DOCUMENT')) {
    const value = clean(childText(doc, 'NUMBER'));
    if (!value) continue;
    const label =
      clean(childText(doc, 'TYPE_OF_DOCUMENT')) ?? clean(childText(doc, 'TYPE_OF_DOCUMENT2')) ?? 'Document';
    const country = countryCode(childText(doc, 'ISSUING_COUNTRY') ?? childText(doc, 'COUNTRY_OF_ISSUE'));
    entity.identifiers.push(listIdentifier(label, value, country));
  }
}

function addAddresses(entity: ListEntity, addresses: XmlElement[]): void {
  for (const address of addresses) {
    const pieces = ['STREET', 'CITY', 'STATE_PROVINCE', 'ZIP_CODE', 'COUNTRY'].map((tag) =>
      childText(address, tag),
    );
    const full = clean(pieces.filter(Boolean).join(', '));
    if (!full) continue;
    const city = clean(childText(address, 'CITY'));
    const country = countryCode(childText(address, 'COUNTRY'));
    entity.addresses.push({ full, ...(city && { city }), ...(country && { country }) });
    addCountry(entity, childText(address, 'COUNTRY'));
  }
}
