import { countryCode } from '../../entity-building/countries.js';
import { parseBirthDate, parseFullDate } from '../../entity-building/dates.js';
import {
  addCountry,
  addName,
  addPlaceOfBirth,
  joinName,
  newEntity,
  parseGender,
} from '../../entity-building/entity-draft.js';
import { clean, pushUnique } from '../../entity-building/text.js';
import type { EntityKind, ListEntity, NameType } from '../../list-entity.js';
import { addImoNumbersFrom, listIdentifier } from './identifier-types.js';
import { imoNumberOf } from './imo-numbers.js';
import { resolveLimits } from './limits.js';
import { finishResult, pushEntity, requireFile } from './result.js';
import { openText } from './text-input.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';
import {
  childrenNamed,
  childText,
  elementToRaw,
  firstChild,
  nestedTexts,
  textOf,
  type XmlElement,
} from './xml-element.js';
import { readXmlRecords } from './xml-records.js';

export const UK_FCDO_SOURCE = 'uk_fcdo';
export const UK_FCDO_LIST = 'UK_SANCTIONS_LIST';
export const UK_FCDO_FILE = 'UK-Sanctions-List.xml';

const KINDS: Readonly<Record<string, EntityKind>> = {
  individual: 'person',
  entity: 'organization',
  ship: 'vessel',
};

/** The UK Sanctions List XML published by the FCDO (`<Designations>`). */
export async function parseUkFcdoXml(
  files: ListFiles,
  options: ListParseOptions = {},
): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = { list: UK_FCDO_SOURCE, file: UK_FCDO_FILE };
  const text = openText(requireFile(files, UK_FCDO_FILE, UK_FCDO_SOURCE), ctx, limits, options.signal);
  const entities: ListEntity[] = [];
  let listDate: string | undefined;
  const records = await readXmlRecords(text, ctx, limits, {
    roots: ['Designations'],
    isRecord: (name, depth) => depth === 1 && (name === 'Designation' || name === 'DateGenerated'),
    onRecord: (el) => {
      if (el.name === 'DateGenerated') listDate = parseFullDate(textOf(el));
      else pushEntity(entities, toEntity(el), limits, ctx);
    },
  });
  return finishResult(
    { source: UK_FCDO_SOURCE, entities, records: records - (listDate ? 1 : 0), listDate },
    ctx,
  );
}

function toEntity(el: XmlElement): ListEntity {
  const id = childText(el, 'UniqueID');
  if (!id) throw new Error('Designation without UniqueID');
  const kind = KINDS[childText(el, 'IndividualEntityShip')?.toLowerCase() ?? ''] ?? 'unknown';
  const entity = newEntity(UK_FCDO_SOURCE, UK_FCDO_LIST, id, kind, elementToRaw(el));
  addNames(entity, el);
  pushUnique(entity.programs, childText(el, 'RegimeName'));
  const listedOn = parseFullDate(childText(el, 'DateDesignated'));
  if (listedOn) entity.listed_on = listedOn;
  const remarks = clean(
    [childText(el, 'OtherInformation'), childText(el, 'UKStatementofReasons')].filter(Boolean).join(' '),
  );
  if (remarks) entity.remarks = remarks;
  addImoNumbersFrom(entity, childText(el, 'OtherInformation'), 'OtherInformation');
  addAddresses(entity, el);
  addContactIdentifiers(entity, el);
  const individual = firstChild(firstChild(el, 'IndividualDetails'), 'Individual');
  if (individual) addIndividualFacts(entity, individual);
  addEntityFacts(entity, el);
  return entity;
}

function nameType(name: XmlElement): NameType {
  const type = childText(name, 'NameType')?.toLowerCase() ?? '';
  if (type === 'primary name') return 'primary';
  if (/low quality/i.test(childText(name, 'AliasStrength') ?? '')) return 'weak_aka';
  return 'aka';
}

/** Name1..Name5 are forenames and Name6 the surname (or an entity's whole name). */
function addNames(entity: ListEntity, el: XmlElement): void {
  const names = childrenNamed(firstChild(el, 'Names') ?? el, 'Name');
  const ordered = [...names].sort(
    (a, b) => Number(nameType(b) === 'primary') - Number(nameType(a) === 'primary'),
  );
  for (const name of ordered) {
    const given = childText(name, 'Name1');
    const middle = joinName(...['Name2', 'Name3', 'Name4', 'Name5'].map((tag) => childText(name, tag)));
    const family = childText(name, 'Name6');
    const type =
      entity.names.length === 0 ? 'primary' : nameType(name) === 'primary' ? 'aka' : nameType(name);
    addName(entity, { full: joinName(given, middle, family), type, parts: { given, middle, family } });
  }
  for (const nonLatin of childrenNamed(firstChild(el, 'NonLatinNames') ?? el, 'NonLatinName')) {
    addName(entity, { full: childText(nonLatin, 'NameNonLatinScript'), type: 'original_script' });
  }
}

function addAddresses(entity: ListEntity, el: XmlElement): void {
  for (const address of childrenNamed(firstChild(el, 'Addresses') ?? el, 'Address')) {
    const lines = [1, 2, 3, 4, 5, 6].map((n) => childText(address, `AddressLine${n}`));
    const country = childText(address, 'AddressCountry');
    const full = clean(
      [...lines, childText(address, 'AddressPostalCode'), country].filter(Boolean).join(', '),
    );
    if (!full) continue;
    const code = countryCode(country);
    entity.addresses.push({ full, ...(code && { country: code }) });
    addCountry(entity, country);
  }
}

function addContactIdentifiers(entity: ListEntity, el: XmlElement): void {
  const contacts: [string, string, 'email' | 'phone' | 'website'][] = [
    ['EmailAddresses', 'EmailAddress', 'email'],
    ['PhoneNumbers', 'PhoneNumber', 'phone'],
    ['Websites', 'Website', 'website'],
  ];
  for (const [group, item, type] of contacts) {
    for (const value of nestedTexts(el, group, item)) entity.identifiers.push({ type, value, label: item });
  }
}

function addIndividualFacts(entity: ListEntity, individual: XmlElement): void {
  for (const dob of nestedTexts(individual, 'DOBs', 'DOB')) {
    const date = parseBirthDate(dob);
    if (date && !entity.birth_dates.includes(date)) entity.birth_dates.push(date);
  }
  for (const nationality of nestedTexts(individual, 'Nationalities', 'Nationality'))
    addCountry(entity, nationality, true);
  const gender = parseGender(nestedTexts(individual, 'Genders', 'Gender')[0]);
  if (gender) entity.gender = gender;
  for (const location of childrenNamed(firstChild(individual, 'BirthDetails') ?? individual, 'Location')) {
    const pieces = [childText(location, 'TownOfBirth'), childText(location, 'CountryOfBirth')];
    addPlaceOfBirth(entity, pieces.filter(Boolean).join(', '));
  }
  const documents: [string, string, string][] = [
    ['PassportDetails', 'PassportNumber', 'Passport'],
    ['NationalIdentifierDetails', 'NationalIdentifierNumber', 'National Identifier'],
  ];
  for (const [group, numberTag, label] of documents) {
    for (const doc of firstChild(individual, group)?.children ?? []) {
      const value = childText(doc, numberTag);
      if (value && !entity.identifiers.some((id) => id.value === value && id.label === label)) {
        entity.identifiers.push(listIdentifier(label, value));
      }
    }
  }
}

function addEntityFacts(entity: ListEntity, el: XmlElement): void {
  const details = firstChild(firstChild(el, 'EntityDetails'), 'Entity');
  for (const value of details
    ? nestedTexts(details, 'BusinessRegistrationNumbers', 'BusinessRegistrationNumber')
    : []) {
    entity.identifiers.push(listIdentifier('BusinessRegistrationNumber', value));
  }
  const ship = firstChild(firstChild(el, 'ShipDetails'), 'Ship');
  if (!ship) return;
  for (const value of nestedTexts(ship, 'IMONumbers', 'IMONumber')) {
    entity.identifiers.push({ type: 'imo', value: imoNumberOf(value) ?? value, label: 'IMONumber' });
  }
  for (const flag of nestedTexts(ship, 'CurrentBelievedFlagOfShips', 'CurrentBelievedFlagOfShip'))
    addCountry(entity, flag);
}
