import { countryCode } from '../../entity-building/countries.js';
import { dateRange, parseDate, parseFullDate, partialDate } from '../../entity-building/dates.js';
import {
  addCountry,
  addName,
  addPlaceOfBirth,
  newEntity,
  parseGender,
} from '../../entity-building/entity-draft.js';
import { clean, pushUnique } from '../../entity-building/text.js';
import type { BirthDate, ListEntity, NameType } from '../../list-entity.js';
import { addImoNumbersFrom, listIdentifier } from './identifier-types.js';
import { resolveLimits } from './limits.js';
import { finishResult, pushEntity, requireFile } from './result.js';
import { openText } from './text-input.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';
import { attr, childrenNamed, childText, elementToRaw, type XmlElement } from './xml-element.js';
import { readXmlRecords } from './xml-records.js';

export const EU_SOURCE = 'eu_fsf';
export const EU_LIST = 'EU_CONSOLIDATED';
export const EU_FILE = 'xmlFullSanctionsList_1_1.xml';

const KINDS: Readonly<Record<string, ListEntity['kind']>> = { person: 'person', enterprise: 'organization' };
/** The FSF flags some aliases as weak only in the alias's remark ("low quality alias"). */
const LOW_QUALITY_REMARK = /low quality/i;

/** The EU Financial Sanctions Files full list, `xmlFullSanctionsList_1_1` (about 25 MB). */
export async function parseEuXml(files: ListFiles, options: ListParseOptions = {}): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = { list: EU_SOURCE, file: EU_FILE };
  const text = openText(requireFile(files, EU_FILE, EU_SOURCE), ctx, limits, options.signal);
  const entities: ListEntity[] = [];
  let listDate: string | undefined;
  const records = await readXmlRecords(text, ctx, limits, {
    roots: ['export'],
    onRoot: (attrs) => {
      listDate = parseFullDate(attrs.generationDate?.slice(0, 10));
    },
    isRecord: (name, depth) => depth === 1 && name === 'sanctionEntity',
    onRecord: (el) => pushEntity(entities, toEntity(el), limits, ctx),
  });
  return finishResult({ source: EU_SOURCE, entities, records, listDate }, ctx);
}

function toEntity(el: XmlElement): ListEntity {
  const id = attr(el, 'logicalId');
  if (!id) throw new Error('sanctionEntity without logicalId');
  const subject = attr(childrenNamed(el, 'subjectType')[0], 'code') ?? '';
  const entity = newEntity(EU_SOURCE, EU_LIST, id, KINDS[subject] ?? 'unknown', elementToRaw(el));
  addNames(entity, childrenNamed(el, 'nameAlias'));
  for (const regulation of childrenNamed(el, 'regulation'))
    pushUnique(entity.programs, attr(regulation, 'programme'));
  const listedOn = parseFullDate(attr(el, 'designationDate'));
  if (listedOn) entity.listed_on = listedOn;
  const remarks = clean(
    childrenNamed(el, 'remark')
      .map((r) => r.text)
      .join(' '),
  );
  if (remarks) entity.remarks = remarks;
  addImoNumbersFrom(entity, remarks, 'remark');
  const url = childText(childrenNamed(el, 'regulation')[0], 'publicationUrl');
  if (url) entity.url = url;
  for (const citizenship of childrenNamed(el, 'citizenship')) {
    addCountry(entity, attr(citizenship, 'countryIso2Code') ?? attr(citizenship, 'countryDescription'), true);
  }
  addBirthdates(entity, childrenNamed(el, 'birthdate'));
  addIdentifications(entity, childrenNamed(el, 'identification'));
  addAddresses(entity, childrenNamed(el, 'address'));
  return entity;
}

/**
 * Every nameAlias in every language becomes a name. The FSF marks no primary name: the first
 * strong alias in English (or with no language) is taken as primary, else the first alias.
 */
function addNames(entity: ListEntity, aliases: XmlElement[]): void {
  const weak = (alias: XmlElement) =>
    attr(alias, 'strong') === 'false' ||
    childrenNamed(alias, 'remark').some((r) => LOW_QUALITY_REMARK.test(r.text));
  const primary =
    aliases.find(
      (a) => !weak(a) && ['EN', undefined].includes(attr(a, 'nameLanguage')) && attr(a, 'wholeName'),
    ) ?? aliases.find((a) => attr(a, 'wholeName'));
  const ordered = primary ? [primary, ...aliases.filter((a) => a !== primary)] : aliases;
  for (const alias of ordered) {
    const type: NameType = alias === primary ? 'primary' : weak(alias) ? 'weak_aka' : 'aka';
    const parts = {
      given: attr(alias, 'firstName'),
      middle: attr(alias, 'middleName'),
      family: attr(alias, 'lastName'),
    };
    const lang = attr(alias, 'nameLanguage');
    addName(entity, { full: attr(alias, 'wholeName'), type, parts, ...(lang && { lang }) });
    const gender = parseGender(attr(alias, 'gender'));
    if (gender && !entity.gender) entity.gender = gender;
  }
}

/**
 * Gregorian dates are read from their parts. For other calendars (ISLAMIC, ...) the FSF gives the
 * Gregorian equivalent in the `birthdate` attribute; without it the date is left to `raw`.
 */
function birthdateOf(el: XmlElement): BirthDate | undefined {
  const gregorian = (attr(el, 'calendarType') ?? 'GREGORIAN').toUpperCase() === 'GREGORIAN';
  if (!gregorian) return parseDate(attr(el, 'birthdate'));
  const exact = parseDate(attr(el, 'birthdate'));
  if (exact) return exact;
  const year = Number(attr(el, 'year'));
  if (year) return partialDate(year, Number(attr(el, 'monthOfYear')), Number(attr(el, 'dayOfMonth')));
  return dateRange(parseDate(attr(el, 'yearRangeFrom')), parseDate(attr(el, 'yearRangeTo')));
}

function addBirthdates(entity: ListEntity, birthdates: XmlElement[]): void {
  for (const el of birthdates) {
    const date = birthdateOf(el);
    if (date && !entity.birth_dates.includes(date)) entity.birth_dates.push(date);
    const pieces = [attr(el, 'place'), attr(el, 'city'), attr(el, 'region'), countryName(el)];
    addPlaceOfBirth(entity, pieces.filter(Boolean).join(', '));
  }
}

/** The country's name, unless it is the FSF's "unknown" placeholder. */
function countryName(el: XmlElement): string | undefined {
  return attr(el, 'countryIso2Code') === '00' ? undefined : attr(el, 'countryDescription');
}

function addIdentifications(entity: ListEntity, identifications: XmlElement[]): void {
  for (const el of identifications) {
    const value = attr(el, 'number') ?? attr(el, 'latinNumber');
    if (!value) continue;
    const label =
      attr(el, 'identificationTypeDescription') ?? attr(el, 'identificationTypeCode') ?? 'identification';
    const code = attr(el, 'identificationTypeCode') ?? '';
    const country = countryCode(attr(el, 'countryIso2Code'));
    const identifier = listIdentifier(label, value, country);
    // The FSF's code `id` is a national identity card, whatever its description says.
    if (code === 'id' && identifier.type !== 'imo') identifier.type = 'national_id';
    entity.identifiers.push(identifier);
  }
}

function addAddresses(entity: ListEntity, addresses: XmlElement[]): void {
  for (const el of addresses) {
    const pieces = ['street', 'poBox', 'city', 'zipCode', 'region', 'place'].map((key) => attr(el, key));
    const full = clean([...pieces, countryName(el)].filter(Boolean).join(', '));
    if (!full) continue;
    const city = attr(el, 'city');
    const country = countryCode(attr(el, 'countryIso2Code'));
    entity.addresses.push({ full, ...(city && { city }), ...(country && { country }) });
    addCountry(entity, attr(el, 'countryIso2Code'));
  }
}
