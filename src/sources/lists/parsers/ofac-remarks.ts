import { parseBirthDate } from '../../entity-building/dates.js';
import { clean } from '../../entity-building/text.js';
import type { BirthDate } from '../../list-entity.js';

/** What OFAC's Remarks field states about an entry, before it is mapped onto the entity. */
export interface OfacRemarkFacts {
  birthDates: BirthDate[];
  placesOfBirth: string[];
  nationalities: string[];
  /** Countries that are not nationalities (a vessel's or a company's registration). */
  countries: string[];
  gender?: string;
  identifiers: { label: string; value: string; country?: string }[];
  /** Names given only as "a.k.a. 'NAME'" in the Remarks: OFAC lists them as weak aliases. */
  weakAliases: string[];
}

// Labels whose value follows without a "No."/"Number" suffix to recognise them by.
const KNOWN_LABEL =
  /^(Diplomatic Passport|Passport|C\.U\.R\.P\.|R\.F\.C\.|RFC|D\.N\.I\.|C\.U\.I\.|I\.F\.E\.|SSN|MMSI|ISIN|SWIFT\/BIC|License|BIK \(RU\)|US FEIN|Credencial electoral|Cartilla de Servicio Militar Nacional|Italian Fiscal Code|Personal ID Card|Equity Ticker|Website|Email Address|Email|Vessel Registration Identification|Digital Currency Address - \S+|Aircraft Construction Number \(also called L\/N or S\/N or F\/N\)|Aircraft Manufacturer's Serial Number \(MSN\)|(?:Previous )?Aircraft Tail Number)(?:\s+(?:#|No\.))?\s*:?\s*(.+)$/;
// Any other "<Label> No./Number/#/ID/Code <value with a digit>", e.g. "Cedula No. 6068015 (Colombia)".
const NUMBERED_LABEL =
  /^([A-Z][\w.'#/()&-]*(?: [\w.'#/()&-]+){0,7}? (?:No\.?|Number|#|ID|Code|Card|\(USCC\)|\(USCCC\)|\(CBLS\)))(?!\s+(?:No\.?|Number|#)\s)\s+(.*\d.*)$/;
const ALIAS = /^([afn])\.k\.a\.\s+['‘"](.+?)['’"]?$/i;
const VALIDITY_SUFFIX = /\s+(?:issued|expires|Issue Date|Expire Date|Expiration Date)\b.*$/i;

function emptyFacts(): OfacRemarkFacts {
  return {
    birthDates: [],
    placesOfBirth: [],
    nationalities: [],
    countries: [],
    identifiers: [],
    weakAliases: [],
  };
}

/**
 * Reads the semicolon-separated statements of an OFAC Remarks field ("DOB 10 Dec 1948; POB
 * Egypt; Passport 1084010 (Egypt); a.k.a. 'X'."). Statements it does not recognise (positions,
 * "Linked To:", directive notes) are left to `remarks` and `raw`.
 */
export function parseOfacRemarks(remarks: string | undefined): OfacRemarkFacts {
  const facts = emptyFacts();
  const text = clean(remarks)?.replace(/\.$/, '');
  if (!text) return facts;
  for (const segment of text.split(/;\s+/)) {
    const statement = segment.replace(/^alt\.\s*/i, '').trim();
    if (statement) readStatement(statement, facts);
  }
  return facts;
}

function readStatement(statement: string, facts: OfacRemarkFacts): void {
  let m = ALIAS.exec(statement);
  if (m) return void pushClean(facts.weakAliases, m[2]);
  m = /^DOB:?\s+(.+)$/.exec(statement);
  if (m) {
    const date = parseBirthDate(m[1]);
    if (date && !facts.birthDates.includes(date)) facts.birthDates.push(date);
    return;
  }
  m = /^POB:?\s+(.+)$/.exec(statement);
  if (m) return void pushClean(facts.placesOfBirth, m[1]);
  m = /^Nationality of Registration\s+(.+)$/i.exec(statement);
  if (m) return void pushClean(facts.countries, m[1]);
  m = /^(?:nationality|citizen):?\s+(.+)$/i.exec(statement);
  if (m) return void pushClean(facts.nationalities, m[1]);
  m = /^Gender\s+(\S+)$/.exec(statement);
  if (m) {
    facts.gender = m[1];
    return;
  }
  readIdentifier(statement, facts);
}

function readIdentifier(statement: string, facts: OfacRemarkFacts): void {
  const m = KNOWN_LABEL.exec(statement) ?? NUMBERED_LABEL.exec(statement);
  if (!m) return;
  const label = m[1]!;
  let rest = m[2]!.replace(VALIDITY_SUFFIX, '');
  let country: string | undefined;
  const inParens = /\s*\(([^()]+)\)$/.exec(rest);
  if (inParens) {
    country = clean(inParens[1]);
    rest = rest.slice(0, inParens.index);
  }
  const value = clean(rest);
  if (!value) return;
  facts.identifiers.push(country ? { label, value, country } : { label, value });
}

function pushClean(target: string[], value: string | undefined): void {
  const text = clean(value);
  if (text && !target.includes(text)) target.push(text);
}
