import { compareNames, type NameComparison, type NameType, type QueryType } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import { explanationForApi } from '../list-flag.js';

export const COMPANIES_HOUSE_SOURCE_ID = 'uk_companies_house';
export const DISQUALIFIED_DIRECTORS_LIST = 'UK_DISQUALIFIED_DIRECTORS';
/** The public register a person reads; the API's `links.self` paths are valid under it too. */
export const COMPANIES_HOUSE_SERVICE_URL = 'https://find-and-update.company-information.service.gov.uk';

/**
 * The only detail paths we ever request: the API's own link of a disqualified officer. Anything
 * else in `links.self` (an answer is untrusted) is ignored, so an answer cannot steer our key to
 * another path.
 */
const OFFICER_PATH = /^\/disqualified-officers\/(natural|corporate)\/[A-Za-z0-9_-]{1,100}$/;

/** One item of `GET /search/disqualified-officers` (DisqualifiedOfficerSearchItems). */
export interface DisqualifiedOfficerItem {
  title: string;
  /** `/disqualified-officers/{natural|corporate}/{officer_id}`, when the answer gave a valid one. */
  path: string | undefined;
  officerKind: 'natural' | 'corporate' | undefined;
  officerId: string | undefined;
  /** Natural persons only; the search gives a timestamp (`1987-08-03T00:00:00`), kept as its date. */
  dateOfBirth: string | undefined;
  addressSnippet: string | undefined;
  /** e.g. "Born on 3 August 1987 - Disqualified": the search's own summary line. */
  description: string | undefined;
  /** Other names under which the officer was disqualified, when there are some. */
  snippet: string | undefined;
  raw: Record<string, unknown>;
}

/** One disqualification of the officer's detail resource (natural or corporate). */
export interface Disqualification {
  disqualified_from: string | null;
  disqualified_until: string | null;
  disqualification_type: string | null;
  case_identifier: string | null;
  court_name: string | null;
  heard_on: string | null;
  undertaken_on: string | null;
  company_names: string[];
  reason: { act: string | null; section: string | null; description_identifier: string | null };
}

/** What the detail resource adds to a search item: the dates and reasons of each disqualification. */
export interface OfficerDisqualifications {
  disqualifications: Disqualification[];
  nationality: string | null;
  raw: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function officerItem(raw: Record<string, unknown>): DisqualifiedOfficerItem | undefined {
  const title = text(raw.title);
  if (!title) return undefined;
  const self = isRecord(raw.links) ? text(raw.links.self) : undefined;
  const path = self && OFFICER_PATH.test(self) ? self : undefined;
  const [, , officerKind, officerId] = path ? path.split('/') : [];
  return {
    title,
    path,
    officerKind: officerKind as DisqualifiedOfficerItem['officerKind'],
    officerId,
    dateOfBirth: text(raw.date_of_birth)?.slice(0, 10),
    addressSnippet: text(raw.address_snippet),
    description: text(raw.description),
    snippet: text(raw.snippet),
    raw,
  };
}

/**
 * The items of a DisqualifiedOfficerSearch answer; undefined when the answer is not one (a
 * failure, never "no match"). An item without a name cannot be matched and is left out.
 */
export function disqualifiedOfficersFrom(body: unknown): DisqualifiedOfficerItem[] | undefined {
  if (!isRecord(body)) return undefined;
  // The API leaves `items` out when nothing matched.
  if (body.items === undefined) return [];
  if (!Array.isArray(body.items)) return undefined;
  return body.items.filter(isRecord).flatMap((raw) => officerItem(raw) ?? []);
}

function disqualification(raw: Record<string, unknown>): Disqualification {
  const reason = isRecord(raw.reason) ? raw.reason : {};
  const field = (value: unknown) => text(value) ?? null;
  return {
    disqualified_from: field(raw.disqualified_from),
    disqualified_until: field(raw.disqualified_until),
    disqualification_type: field(raw.disqualification_type),
    case_identifier: field(raw.case_identifier),
    court_name: field(raw.court_name),
    heard_on: field(raw.heard_on),
    undertaken_on: field(raw.undertaken_on),
    company_names: Array.isArray(raw.company_names) ? raw.company_names.flatMap((n) => text(n) ?? []) : [],
    reason: {
      act: field(reason.act),
      section: field(reason.section),
      description_identifier: field(reason.description_identifier),
    },
  };
}

/** The disqualifications of an officer's detail resource; undefined when the answer is not one. */
export function officerDisqualificationsFrom(body: unknown): OfficerDisqualifications | undefined {
  if (!isRecord(body) || !Array.isArray(body.disqualifications)) return undefined;
  return {
    disqualifications: body.disqualifications.filter(isRecord).map(disqualification),
    nationality: text(body.nationality) ?? null,
    raw: body,
  };
}

export interface OfficerMatch {
  item: DisqualifiedOfficerItem;
  comparison: NameComparison;
  nameType: NameType;
}

/**
 * How well the officer's names match the query: the register's name (`title`) and, as an alias,
 * the other names it was disqualified under (`snippet`), which the search itself matched on.
 */
export function officerMatch(query: string, type: QueryType, item: DisqualifiedOfficerItem): OfficerMatch {
  let best: OfficerMatch = {
    item,
    comparison: compareNames(query, item.title, type, 'primary'),
    nameType: 'primary',
  };
  if (item.snippet && item.snippet !== item.title) {
    const alias = compareNames(query, item.snippet, type, 'aka');
    if (alias.score > best.comparison.score) best = { item, comparison: alias, nameType: 'aka' };
  }
  return best;
}

/**
 * A `watchlist` flag for a matched disqualified officer. `officer` is its detail resource, or null
 * when that could not be read in time: the match is still reported (it is the signal), with
 * `disqualifications: null` meaning "not known" rather than "none".
 */
export function disqualifiedOfficerFlag(match: OfficerMatch, officer: OfficerDisqualifications | null): Flag {
  const { item, comparison } = match;
  return {
    type: 'watchlist',
    source: COMPANIES_HOUSE_SOURCE_ID,
    list: DISQUALIFIED_DIRECTORS_LIST,
    match_score: comparison.score,
    details: {
      source_id: item.officerId ?? null,
      kind: item.officerKind === 'corporate' ? 'organization' : item.officerKind ? 'person' : 'unknown',
      name: item.title,
      other_names: item.snippet ?? null,
      date_of_birth: item.dateOfBirth ?? null,
      nationality: officer?.nationality ?? null,
      address: item.addressSnippet ?? null,
      description: item.description ?? null,
      disqualifications: officer?.disqualifications ?? null,
      url: item.path ? COMPANIES_HOUSE_SERVICE_URL + item.path : null,
      matched_name: comparison.explanation.matchedName,
      matched_name_type: match.nameType,
      // The explanation states the flag's own score, as list flags do (compareNames rounds its copy).
      match_explanation: explanationForApi({ ...comparison.explanation, score: comparison.score }),
      source_record: { search_item: item.raw, officer: officer?.raw ?? null },
    },
  };
}
