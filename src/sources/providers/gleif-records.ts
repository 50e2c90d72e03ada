/**
 * Reading GLEIF API v1 answers (JSON:API documents of `lei-records`), which are untrusted input:
 * only the fields the ownership check needs are kept, each checked for its type.
 */

/** An LEI is 20 characters, letters and digits (ISO 17442); anything else is never put in a URL. */
const LEI_PATTERN = /^[A-Z0-9]{20}$/;

/**
 * Whether the record says a parent is reported: its `relationships.direct-parent` (or
 * `ultimate-parent`) links hold `lei-record` when there is a parent with an LEI, only
 * `reporting-exception` when the entity declared why there is none (no consolidating parent,
 * natural persons, non-public, ...). `unknown` when the record does not say: then we ask.
 */
export type ParentReport = 'reported' | 'exception' | 'unknown';

export interface LeiName {
  name: string;
  /** GLEIF's name type, e.g. PREVIOUS_LEGAL_NAME, TRADING_OR_OPERATING_NAME, AUTO_ASCII_TRANSLITERATED_LEGAL_NAME. */
  type: string;
}

export interface LeiRecord {
  lei: string;
  legalName: string;
  otherNames: LeiName[];
  jurisdiction: string | null;
  legalAddress: { city: string | null; country: string | null };
  entityStatus: string | null;
  registrationStatus: string | null;
  parents: { direct: ParentReport; ultimate: ParentReport };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

function names(value: unknown): LeiName[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((n) => {
    const name = text(field(n, 'name'));
    return name ? [{ name, type: text(field(n, 'type')) ?? 'OTHER' }] : [];
  });
}

function parentReport(relationships: unknown, relation: 'direct-parent' | 'ultimate-parent'): ParentReport {
  const links = field(field(relationships, relation), 'links');
  if (!isRecord(links)) return 'unknown';
  if (text(links['lei-record'])) return 'reported';
  return text(links['reporting-exception']) ? 'exception' : 'unknown';
}

/** One `lei-records` resource object; undefined when it lacks a valid LEI or a legal name. */
export function leiRecord(resource: unknown): LeiRecord | undefined {
  const attributes = field(resource, 'attributes');
  const entity = field(attributes, 'entity');
  const lei = text(field(attributes, 'lei')) ?? text(field(resource, 'id'));
  const legalName = text(field(field(entity, 'legalName'), 'name'));
  if (!lei || !LEI_PATTERN.test(lei) || !legalName) return undefined;
  const address = field(entity, 'legalAddress');
  const relationships = field(resource, 'relationships');
  return {
    lei,
    legalName,
    otherNames: [...names(field(entity, 'otherNames')), ...names(field(entity, 'transliteratedOtherNames'))],
    jurisdiction: text(field(entity, 'jurisdiction')),
    legalAddress: { city: text(field(address, 'city')), country: text(field(address, 'country')) },
    entityStatus: text(field(entity, 'status')),
    registrationStatus: text(field(field(attributes, 'registration'), 'status')),
    parents: {
      direct: parentReport(relationships, 'direct-parent'),
      ultimate: parentReport(relationships, 'ultimate-parent'),
    },
  };
}

/** The records of a collection answer (`/lei-records?filter...`); undefined when it is not one. */
export function leiRecordsFrom(body: unknown): LeiRecord[] | undefined {
  const data = field(body, 'data');
  if (!Array.isArray(data)) return undefined;
  return data.flatMap((resource) => leiRecord(resource) ?? []);
}

/** The record of a single-resource answer (`/lei-records/{lei}/direct-parent`); undefined when it is not one. */
export function singleLeiRecordFrom(body: unknown): LeiRecord | undefined {
  return leiRecord(field(body, 'data'));
}

/** The record's page on GLEIF's public search, for the person reading the flag. */
export function gleifRecordUrl(lei: string): string {
  return `https://search.gleif.org/#/record/${lei}`;
}
