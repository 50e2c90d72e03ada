import type { EntityIdentifier, IdentifierType, ListEntity } from '../../list-entity.js';
import { imoNumberOf, imoNumbersIn } from './imo-numbers.js';

// Maps the lists' identifier labels (OFAC remarks, OFAC/UN/EU/UK document types, CSL ids) to the
// model's identifier kinds. Order matters: the first pattern that matches wins, so the specific
// labels come before the generic ones ("Aircraft Tail Number" before "Number").
const RULES: ReadonlyArray<readonly [RegExp, IdentifierType]> = [
  [/pass(?:e)?port|pasaporte/i, 'passport'],
  // OFAC's "Vessel Registration Identification" is an IMO number when its value is one (read by
  // listIdentifier), else a national register's number ("RS 150443").
  [/\bimo\b/i, 'imo'],
  [/\bmmsi\b/i, 'mmsi'],
  [/swift|\bbic\b(?!\s*\()/i, 'swift_bic'],
  [/legal entity number|\blei\b/i, 'lei'],
  [/digital currency address|crypto|wallet/i, 'crypto_address'],
  [/\bisin\b/i, 'isin'],
  [/d-u-n-s|\bduns\b/i, 'duns'],
  [/e-?mail/i, 'email'],
  [/phone|fax|telephone/i, 'phone'],
  [/website|\burl\b/i, 'website'],
  [/call sign/i, 'call_sign'],
  [/tail number/i, 'aircraft_tail_number'],
  [/serial number|construction number|\bmsn\b/i, 'aircraft_serial'],
  [/tax|fiscal|\bvat\b|v\.a\.t\.|r\.f\.c\.|^rfc\b|^nit\b|^ruc\b|^rif\b|fein|\binn\b|\bkpp\b/i, 'tax_id'],
  [
    /national id|national identification|identity card|identification (number|card|no)|\bid card\b|cedula|c\.u\.r\.p\.|curp|d\.n\.i\.|\bdni\b|c\.u\.i\.|electoral|i\.f\.e\.|\bssn\b|social security|birth certificate|residency|driver|numero de identidad|personal id|immigration|military|kenyan id|^id\b|^nationalid$|^id$/i,
    'national_id',
  ],
  [
    /registration|regnumber|company (number|no)|registry|register|folio mercantil|matricula|c\.r\. no|trade licen|licen[cs]e|gazette|social credit|chamber of comm|enterprise number|incorporation|charity|branch unit|permit|\bogrn\b|\bbik\b|business/i,
    'registration_number',
  ],
];

export function identifierType(label: string): IdentifierType {
  for (const [pattern, type] of RULES) {
    if (pattern.test(label)) return type;
  }
  return 'other';
}

/**
 * A list's identifier: its kind from its label, except that a value written as an IMO number
 * ("IMO 5342883", under "Identification Number" or "Company Number") is one whatever the label,
 * kept without its prefix, and that a "Legal Entity Number" which is no ISO LEI (OFAC's "Legal
 * Entity Number 851683897 (Netherlands)", a national register's) is a registration number.
 * `country` is the issuing country, when known.
 */
export function listIdentifier(label: string, value: string, country?: string): EntityIdentifier {
  const imo = imoNumberOf(value, label);
  let type = imo === undefined ? identifierType(label) : 'imo';
  if (type === 'lei' && !ISO_LEI.test(value.trim())) type = 'registration_number';
  return { type, value: imo ?? value, label, ...(country && { country }) };
}

/** An ISO 17442 LEI as the lists write it: 18 letters and digits, then 2 check digits. */
const ISO_LEI = /^[0-9A-Z]{18}\d{2}$/i;

/** The IMO numbers a record's free text states (see imoNumbersIn), each added once to its identifiers. */
export function addImoNumbersFrom(entity: ListEntity, text: string | undefined, label: string): void {
  for (const value of imoNumbersIn(text)) {
    if (!entity.identifiers.some((id) => id.type === 'imo' && id.value === value))
      entity.identifiers.push({ type: 'imo', value, label });
  }
}
