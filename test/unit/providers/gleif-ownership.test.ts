import { describe, expect, it } from 'vitest';
import type { Flag } from '../../../src/sources/flag.js';
import {
  companyMatch,
  listedParentFlag,
  ownershipLinks,
} from '../../../src/sources/providers/gleif-ownership.js';
import {
  type LeiRecord,
  leiRecordsFrom,
  singleLeiRecordFrom,
} from '../../../src/sources/providers/gleif-records.js';
import { fixture } from '../../support/provider-server.js';

const [subsidiary, namesake] = leiRecordsFrom(JSON.parse(fixture('gleif-lei-records-subsidiary.json')))!;
const intermediate = singleLeiRecordFrom(JSON.parse(fixture('gleif-direct-parent-intermediate.json')))!;
const listedParent = singleLeiRecordFrom(JSON.parse(fixture('gleif-ultimate-parent-listed.json')))!;

/** A flag as the official lists give it for the listed parent. */
const unListing: Flag = {
  type: 'sanctions',
  source: 'un_sc',
  list: 'UN_CONSOLIDATED',
  match_score: 0.93,
  details: {
    source_id: 'KPe.001',
    name: 'KOREA MINING DEVELOPMENT TRADING CORPORATION',
    matched_name: 'KOREA MINING DEVELOPMENT TRADING CORPORATION',
    programs: ['DPRK'],
  },
};

describe('GLEIF records: reading the answers', () => {
  it('reads an LEI record with the parents it reports, and the namesake that reports none', () => {
    expect(subsidiary).toMatchObject({
      lei: '5493003BHTRD00HK0161',
      legalName: 'BLUE HARBOUR TRADING LIMITED',
      jurisdiction: 'HK',
      legalAddress: { city: 'Wan Chai', country: 'HK' },
      entityStatus: 'ACTIVE',
      registrationStatus: 'ISSUED',
      parents: { direct: 'reported', ultimate: 'reported' },
    });
    expect(namesake!.parents).toEqual({ direct: 'exception', ultimate: 'exception' });
  });

  it('treats an answer that is not a JSON:API collection as a failure, and skips resources without a valid LEI', () => {
    expect(leiRecordsFrom({ errors: [{ status: '404' }] })).toBeUndefined();
    expect(leiRecordsFrom({ data: {} })).toBeUndefined();
    const bad = {
      type: 'lei-records',
      id: '../../x',
      attributes: { lei: '../../x', entity: { legalName: { name: 'X' } } },
    };
    expect(leiRecordsFrom({ data: [bad] })).toEqual([]);
    expect(singleLeiRecordFrom({ data: null })).toBeUndefined();
  });

  it('asks for a parent the record does not describe (unknown), never for one it declares absent', () => {
    const [record] = leiRecordsFrom({
      data: [{ id: '5493003BHTRD00HK0161', attributes: { entity: { legalName: { name: 'A' } } } }],
    })!;
    expect(record!.parents).toEqual({ direct: 'unknown', ultimate: 'unknown' });
  });
});

describe('GLEIF ownership: from a matched company and its listed parent to a flag', () => {
  it('screens a parent reported as both direct and ultimate once, as one link', () => {
    expect(ownershipLinks(subsidiary!, listedParent, listedParent)).toEqual([
      { company: subsidiary, parent: listedParent, relationship: 'direct_and_ultimate_parent' },
    ]);
    expect(ownershipLinks(subsidiary!, intermediate, listedParent).map((l) => l.relationship)).toEqual([
      'direct_parent',
      'ultimate_parent',
    ]);
    expect(ownershipLinks(subsidiary!, undefined, undefined)).toEqual([]);
  });

  it('never reports a company as its own parent (a head of group reports itself as ultimate parent)', () => {
    expect(ownershipLinks(subsidiary!, undefined, subsidiary)).toEqual([]);
  });

  it('flags a listed parent as sanctions from gleif, scored by the weaker of the two matches, with the chain', () => {
    const match = companyMatch('blue harbour trading limited', subsidiary!);
    expect(match.comparison.score).toBe(1);
    const [link] = ownershipLinks(subsidiary!, intermediate, listedParent).filter(
      (l) => l.relationship === 'ultimate_parent',
    );
    const flag = listedParentFlag(match, link!, unListing);
    expect(flag).toMatchObject({
      type: 'sanctions',
      source: 'gleif',
      list: 'UN_CONSOLIDATED',
      match_score: 0.93,
      details: {
        source_id: '5493003BHTRD00HK0161:ultimate_parent:un_sc:KPe.001',
        lei: '5493003BHTRD00HK0161',
        name: 'BLUE HARBOUR TRADING LIMITED',
        matched_name: 'BLUE HARBOUR TRADING LIMITED',
        company_match_score: 1,
        via: {
          relationship: 'ultimate_parent',
          chain: [
            { role: 'screened_company', name: 'BLUE HARBOUR TRADING LIMITED', lei: '5493003BHTRD00HK0161' },
            {
              role: 'ultimate_parent',
              name: 'KOREA MINING DEVELOPMENT TRADING CORPORATION',
              lei: '98450077KPKOMID00113',
            },
          ],
          listed_parent: {
            source: 'un_sc',
            list: 'UN_CONSOLIDATED',
            source_id: 'KPe.001',
            matched_name: 'KOREA MINING DEVELOPMENT TRADING CORPORATION',
            match_score: 0.93,
            programs: ['DPRK'],
          },
        },
      },
    });
  });

  it('names each link of a company to a listing apart, so that each flag is decided on its own', () => {
    const match = companyMatch('blue harbour trading limited', subsidiary!);
    const links = ownershipLinks(subsidiary!, intermediate, listedParent);
    const ofacListing: Flag = {
      ...unListing,
      source: 'ofac_sdn',
      details: { ...unListing.details, source_id: '36' },
    };
    const ids = links.flatMap((link) =>
      [unListing, ofacListing].map((listing) => listedParentFlag(match, link, listing).details.source_id),
    );
    expect(new Set(ids).size).toBe(4);
  });

  it('scores a weak company match below a strong listing: the flag is only as sure as the company match', () => {
    const match = companyMatch('blue harbor traders', subsidiary!);
    const flag = listedParentFlag(match, ownershipLinks(subsidiary!, listedParent, undefined)[0]!, {
      ...unListing,
      match_score: 1,
    });
    expect(flag.match_score).toBe(match.comparison.score);
    expect(flag.match_score).toBeLessThan(1);
  });

  it('matches a company on a previous legal name, reported as a former name (fka)', () => {
    const record: LeiRecord = {
      ...subsidiary!,
      otherNames: [{ name: 'EAST SEA COMMODITIES LIMITED', type: 'PREVIOUS_LEGAL_NAME' }],
    };
    const match = companyMatch('east sea commodities limited', record);
    expect(match.nameType).toBe('fka');
    expect(match.comparison.score).toBe(1);
  });
});
