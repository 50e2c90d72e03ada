import type { EntityIdentifier, IdentifierType, ListEntity } from '../list-entity.js';
import { type FtmEntity, ftmCountry, texts } from './ftm-entity.js';
import type { FtmGraph } from './ftm-graph.js';

/**
 * FtM properties that hold an identifier of the entity itself, and the model's kind for each.
 * Codes shared by many companies (Russia's KPP, a tax office's code) are left out: they identify
 * an office, not the entity, and would only link unrelated parties.
 */
const IDENTIFIER_PROPERTIES: ReadonlyArray<readonly [string, IdentifierType]> = [
  ['registrationNumber', 'registration_number'],
  ['ogrnCode', 'registration_number'],
  ['okpoCode', 'registration_number'],
  ['uniqueEntityId', 'registration_number'],
  ['taxNumber', 'tax_id'],
  ['innCode', 'tax_id'],
  ['vatCode', 'tax_id'],
  ['leiCode', 'lei'],
  ['swiftBic', 'swift_bic'],
  ['dunsCode', 'duns'],
  ['imoNumber', 'imo'],
  ['mmsi', 'mmsi'],
  ['callSign', 'call_sign'],
  ['serialNumber', 'aircraft_serial'],
  ['passportNumber', 'passport'],
  ['idNumber', 'national_id'],
  ['socialSecurityNumber', 'national_id'],
  ['email', 'email'],
  ['phone', 'phone'],
  ['website', 'website'],
];

/** Identity documents are entities of their own in FtM, linked to their holder. */
const DOCUMENT_SCHEMATA: ReadonlyArray<readonly [string, IdentifierType]> = [
  ['Passport', 'passport'],
  ['Identification', 'national_id'],
];

/** The entity's identifiers from its own properties and from the documents it holds. */
export function addIdentifiers(out: ListEntity, entity: FtmEntity, graph: FtmGraph): void {
  for (const [property, type] of IDENTIFIER_PROPERTIES) {
    // An aircraft's registration number is its tail number.
    const kind = out.kind === 'aircraft' && property === 'registrationNumber' ? 'aircraft_tail_number' : type;
    for (const value of texts(entity, property))
      push(out.identifiers, { type: kind, value, label: property });
  }
  for (const [schema, type] of DOCUMENT_SCHEMATA) {
    for (const document of graph.adjacent(entity.id, schema)) {
      const value = texts(document, 'number')[0];
      if (!value) continue;
      const country = texts(document, 'country')[0];
      const code = country ? ftmCountry(country) : undefined;
      const label = texts(document, 'type')[0] ?? schema;
      push(out.identifiers, { type, value, label, ...(code && { country: code }) });
    }
  }
}

function push(identifiers: EntityIdentifier[], identifier: EntityIdentifier): void {
  const repeated = identifiers.some((i) => i.type === identifier.type && i.value === identifier.value);
  if (!repeated) identifiers.push(identifier);
}
