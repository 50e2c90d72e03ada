import { compareNames, type NameComparison, type NameType } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import { explanationForApi } from '../list-flag.js';
import { gleifRecordUrl, type LeiRecord } from './gleif-records.js';

export const GLEIF_SOURCE_ID = 'gleif';

/** How the listed parent stands to the screened company, as GLEIF reports it. */
export type ParentRelationship = 'direct_parent' | 'ultimate_parent' | 'direct_and_ultimate_parent';

export interface CompanyMatch {
  record: LeiRecord;
  comparison: NameComparison;
  nameType: NameType;
}

export interface OwnershipLink {
  company: LeiRecord;
  parent: LeiRecord;
  relationship: ParentRelationship;
}

function nameTypeOf(gleifType: string): NameType {
  if (gleifType === 'PREVIOUS_LEGAL_NAME') return 'fka';
  // Transliterations of the legal name are the same name in Latin letters, not an alias.
  return /TRANSLITERATED_LEGAL_NAME$/.test(gleifType) ? 'primary' : 'aka';
}

/** How well the company's names (legal name, then previous, trading and transliterated names) match the query. */
export function companyMatch(query: string, record: LeiRecord): CompanyMatch {
  let best: CompanyMatch = {
    record,
    comparison: compareNames(query, record.legalName, 'entity', 'primary'),
    nameType: 'primary',
  };
  for (const other of record.otherNames) {
    const nameType = nameTypeOf(other.type);
    const comparison = compareNames(query, other.name, 'entity', nameType);
    if (comparison.score > best.comparison.score) best = { record, comparison, nameType };
  }
  return best;
}

/**
 * The parents to screen: the direct and the ultimate one, once each. Most subsidiaries report the
 * same entity as both, which is then one link (and one flag per listing), not two.
 */
export function ownershipLinks(
  company: LeiRecord,
  direct: LeiRecord | undefined,
  ultimate: LeiRecord | undefined,
): OwnershipLink[] {
  // A head of group may name itself as its ultimate parent: that is no ownership to screen.
  const notSelf = (parent: LeiRecord | undefined) => (parent?.lei === company.lei ? undefined : parent);
  const [directParent, ultimateParent] = [notSelf(direct), notSelf(ultimate)];
  if (directParent && ultimateParent && directParent.lei === ultimateParent.lei) {
    return [{ company, parent: directParent, relationship: 'direct_and_ultimate_parent' }];
  }
  const links: OwnershipLink[] = [];
  if (directParent) links.push({ company, parent: directParent, relationship: 'direct_parent' });
  if (ultimateParent) links.push({ company, parent: ultimateParent, relationship: 'ultimate_parent' });
  return links;
}

function party(record: LeiRecord, role: string): Record<string, unknown> {
  return {
    role,
    name: record.legalName,
    lei: record.lei,
    jurisdiction: record.jurisdiction,
    url: gleifRecordUrl(record.lei),
  };
}

/**
 * A `sanctions` flag for a company whose parent is listed: ownership by a listed party is what
 * the "50% rule" (OFAC, EU, UK) makes a sanctions matter for the subsidiary too. The score is the
 * lower of the two matches the flag rests on, that the screened name is this company and that its
 * parent is the listed party: a chain is only as certain as its weakest link.
 */
export function listedParentFlag(match: CompanyMatch, link: OwnershipLink, listing: Flag): Flag {
  const { record, comparison } = match;
  return {
    type: 'sanctions',
    source: GLEIF_SOURCE_ID,
    list: listing.list,
    match_score: Math.min(comparison.score, listing.match_score),
    details: {
      // The flag's record is the company's link to one listing: a company may be flagged through
      // its direct and its ultimate parent, each on several lists, and each is decided on its own.
      source_id: `${record.lei}:${link.relationship}:${listing.source}:${String(listing.details.source_id ?? '')}`,
      kind: 'organization',
      name: record.legalName,
      lei: record.lei,
      jurisdiction: record.jurisdiction,
      legal_address: record.legalAddress,
      entity_status: record.entityStatus,
      registration_status: record.registrationStatus,
      url: gleifRecordUrl(record.lei),
      matched_name: comparison.explanation.matchedName,
      matched_name_type: match.nameType,
      // The explanation states the flag's own score, as list flags do (compareNames rounds its copy).
      match_explanation: explanationForApi({ ...comparison.explanation, score: comparison.score }),
      company_match_score: comparison.score,
      via: {
        relationship: link.relationship,
        chain: [party(link.company, 'screened_company'), party(link.parent, link.relationship)],
        listed_parent: {
          source: listing.source,
          list: listing.list,
          source_id: listing.details.source_id ?? null,
          name: listing.details.name ?? null,
          matched_name: listing.details.matched_name ?? null,
          match_score: listing.match_score,
          programs: listing.details.programs ?? [],
        },
      },
    },
  };
}
