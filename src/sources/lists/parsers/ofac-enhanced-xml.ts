import { countryCode } from '../../entity-building/countries.js';
import { parseBirthDate, parseFullDate } from '../../entity-building/dates.js';
import { addCountry, addPlaceOfBirth, newEntity, parseGender } from '../../entity-building/entity-draft.js';
import { clean, pushUnique } from '../../entity-building/text.js';
import type { EntityKind, ListEntity } from '../../list-entity.js';
import { identifierType, listIdentifier } from './identifier-types.js';
import { resolveLimits } from './limits.js';
import { addEnhancedNames } from './ofac-enhanced-names.js';
import { finishResult, pushEntity, requireFile } from './result.js';
import { decodeUtf8 } from './text-input.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';
import { attr, childrenNamed, childText, elementToRaw, firstChild, type XmlElement } from './xml-element.js';
import { readXmlRecords } from './xml-records.js';
import { zipEntryBytes } from './zip-input.js';

export const OFAC_CONS_ENHANCED_FILE = 'CONS_ENHANCED.ZIP';
const KINDS: Readonly<Record<string, EntityKind>> = {
  individual: 'person',
  entity: 'organization',
  vessel: 'vessel',
  aircraft: 'aircraft',
};
const OFAC_DETAILS_URL = 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=';
/** Features that name a country linked to the entity rather than a fact to keep as an identifier. */
const NATIONALITY_FEATURES = /^(nationality country|citizenship country)$/i;
const COUNTRY_FEATURES = /^(nationality of registration|vessel flag|other vessel flag|former vessel flag)$/i;

/** Country reference values (refId -> ISO code) declared before the entities that use them. */
type CountryRefs = Map<string, string>;

/** OFAC's Enhanced XML (a zip holding one XML file), e.g. the non-SDN `CONS_ENHANCED.ZIP`. */
export async function parseOfacEnhancedXml(
  source: string,
  list: string,
  fileName: string,
  files: ListFiles,
  options: ListParseOptions = {},
): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = { list: source, file: fileName };
  const zip = requireFile(files, fileName, source);
  const bytes = zipEntryBytes(zip, ctx, limits, (name) => /\.xml$/i.test(name), options.signal);
  const countries: CountryRefs = new Map();
  const entities: ListEntity[] = [];
  let listDate: string | undefined;
  let records = 0;
  await readXmlRecords(decodeUtf8(bytes, ctx), ctx, limits, {
    roots: ['sanctionsData'],
    isRecord: (name, depth) =>
      (depth === 1 && name === 'publicationInfo') ||
      (depth === 2 && (name === 'referenceValue' || name === 'entity')),
    onRecord: (el) => {
      if (el.name === 'publicationInfo') listDate = parseFullDate(childText(el, 'dataAsOf'));
      else if (el.name === 'referenceValue') addCountryRef(countries, el);
      else {
        records++;
        pushEntity(entities, toEntity(source, list, el, countries), limits, ctx);
      }
    },
  });
  return finishResult({ source, entities, records, listDate }, ctx);
}

function addCountryRef(countries: CountryRefs, el: XmlElement): void {
  if (childText(el, 'type') !== 'COUNTRY') return;
  const code = childText(el, 'isoCode') ?? countryCode(childText(el, 'value'));
  const refId = attr(el, 'refId');
  if (refId && code) countries.set(refId, code);
}

function toEntity(source: string, list: string, el: XmlElement, countries: CountryRefs): ListEntity {
  const id = attr(el, 'id');
  if (!id) throw new Error('entity without id');
  const info = firstChild(el, 'generalInfo');
  const kind = KINDS[childText(info, 'entityType')?.toLowerCase() ?? ''] ?? 'unknown';
  const entity = newEntity(source, list, id, kind, elementToRaw(el));
  entity.url = OFAC_DETAILS_URL + id;
  addEnhancedNames(entity, el);
  for (const program of childrenNamed(firstChild(el, 'sanctionsPrograms') ?? el, 'sanctionsProgram')) {
    pushUnique(entity.programs, clean(program.text));
  }
  const published = childrenNamed(firstChild(el, 'sanctionsLists') ?? el, 'sanctionsList')
    .map((item) => parseFullDate(attr(item, 'datePublished')))
    .filter((date): date is string => Boolean(date))
    .sort();
  if (published[0]) entity.listed_on = published[0];
  const remarks = childText(info, 'remarks');
  if (remarks) entity.remarks = remarks;
  addFeatures(entity, childrenNamed(firstChild(el, 'features') ?? el, 'feature'), countries);
  addDocuments(
    entity,
    childrenNamed(firstChild(el, 'identityDocuments') ?? el, 'identityDocument'),
    countries,
  );
  addAddresses(entity, childrenNamed(firstChild(el, 'addresses') ?? el, 'address'), countries);
  return entity;
}

function refCountry(el: XmlElement | undefined, countries: CountryRefs, refId?: string): string | undefined {
  return countries.get(refId ?? attr(el, 'refId') ?? '') ?? countryCode(el ? clean(el.text) : undefined);
}

function addFeatures(entity: ListEntity, features: XmlElement[], countries: CountryRefs): void {
  for (const feature of features) {
    const type = childText(feature, 'type') ?? '';
    const value = childText(feature, 'value');
    const valueCountry = () => countries.get(childText(feature, 'valueRefId') ?? '') ?? countryCode(value);
    if (/^birthdate$/i.test(type)) {
      const date = parseBirthDate(value);
      if (date && !entity.birth_dates.includes(date)) entity.birth_dates.push(date);
    } else if (/^place of birth$/i.test(type)) addPlaceOfBirth(entity, value);
    else if (/^gender$/i.test(type)) entity.gender = parseGender(value) ?? entity.gender;
    else if (NATIONALITY_FEATURES.test(type)) addCountry(entity, valueCountry(), true);
    else if (COUNTRY_FEATURES.test(type)) addCountry(entity, valueCountry());
    else if (value && identifierType(type) !== 'other' && !/date|name|type/i.test(type)) {
      entity.identifiers.push(listIdentifier(type, value));
    }
  }
}

function addDocuments(entity: ListEntity, documents: XmlElement[], countries: CountryRefs): void {
  for (const doc of documents) {
    const value = childText(doc, 'documentNumber');
    if (!value) continue;
    const label = childText(doc, 'type') ?? 'Identity document';
    const country = refCountry(firstChild(doc, 'issuingCountry'), countries);
    entity.identifiers.push(listIdentifier(label, value, country));
  }
}

function addAddresses(entity: ListEntity, addresses: XmlElement[], countries: CountryRefs): void {
  for (const address of addresses) {
    const countryEl = firstChild(address, 'country');
    const translations = childrenNamed(firstChild(address, 'translations') ?? address, 'translation');
    const primary = translations.find((t) => childText(t, 'isPrimary') === 'true') ?? translations[0];
    const parts = childrenNamed(firstChild(primary, 'addressParts') ?? address, 'addressPart');
    const text = (kind: string) =>
      parts.filter((p) => childText(p, 'type') === kind).map((p) => childText(p, 'value'));
    const pieces = [
      ...text('ADDRESS1'),
      ...text('ADDRESS2'),
      ...text('ADDRESS3'),
      ...text('CITY'),
      ...text('STATE/PROVINCE'),
    ];
    const countryName = countryEl ? clean(countryEl.text) : undefined;
    const full = clean(
      [...pieces, ...text('POSTAL CODE'), ...text('REGION'), countryName].filter(Boolean).join(', '),
    );
    if (!full) continue;
    const city = text('CITY')[0];
    const country = countryEl ? refCountry(countryEl, countries) : undefined;
    entity.addresses.push({ full, ...(city && { city }), ...(country && { country }) });
    addCountry(entity, country);
  }
}
