import { describe, expect, it } from 'vitest';
import { identifyFlags } from '../../../src/screening/flag-identity.js';
import type { Flag } from '../../../src/sources/flag.js';
import { listRecordHash } from '../../../src/sources/record-hash.js';

const listFlag = (details: Record<string, unknown>, score = 0.9): Flag => ({
  type: 'sanctions',
  source: 'ofac_sdn',
  list: 'SDN',
  match_score: score,
  details: {
    source_id: '36',
    name: 'AEROCARIBBEAN AIRLINES',
    matched_name: 'AEROCARIBBEAN AIRLINES',
    match_explanation: { score },
    source_record: { uid: 36, name: 'AEROCARIBBEAN AIRLINES', program: 'CUBA' },
    ...details,
  },
});

describe('flag identity', () => {
  it('names a list record by its source and id, whatever matched it and how well', () => {
    const [a] = identifyFlags([listFlag({}, 0.9)]);
    const [b] = identifyFlags([
      listFlag(
        { matched_name: 'AERO CARIBBEAN', match_explanation: { score: 0.7 }, party: 'ofac_sdn:36' },
        0.7,
      ),
    ]);
    expect(a!.id).toBe('ofac_sdn:36');
    expect(b!.id).toBe('ofac_sdn:36');
    expect(b!.details.record_hash).toBe(a!.details.record_hash);
  });

  it('takes the record hash its source remembered, as it would work it out, and answers without that field', () => {
    const [computed] = identifyFlags([listFlag({})]);
    const given = listRecordHash('ofac_sdn', listFlag({}).details.source_record);
    expect(computed!.details.record_hash).toBe(given);
    const [taken] = identifyFlags([{ ...listFlag({}), recordHash: 'remembered' }]);
    expect(taken!.details.record_hash).toBe('remembered');
    expect(taken!.id).toBe('ofac_sdn:36');
    expect(taken).not.toHaveProperty('recordHash');
  });

  it('changes the record hash when the list changes the record, whatever the order of its keys', () => {
    const [before] = identifyFlags([listFlag({})]);
    const [reordered] = identifyFlags([
      listFlag({ source_record: { program: 'CUBA', name: 'AEROCARIBBEAN AIRLINES', uid: 36 } }),
    ]);
    const [changed] = identifyFlags([
      listFlag({ source_record: { uid: 36, name: 'AEROCARIBBEAN AIRLINES', program: 'CUBA; SDGT' } }),
    ]);
    expect(reordered!.details.record_hash).toBe(before!.details.record_hash);
    expect(changed!.details.record_hash).not.toBe(before!.details.record_hash);
  });

  it("ignores a provider's crawl date, which changes with every export", () => {
    const record = (lastSeen: string) => ({
      source_record: { id: 'NK-1', last_seen: lastSeen, schema: 'Person' },
    });
    const [monday] = identifyFlags([listFlag(record('2026-03-09'))]);
    const [tuesday] = identifyFlags([listFlag(record('2026-03-10'))]);
    expect(tuesday!.details.record_hash).toBe(monday!.details.record_hash);
  });

  it('names a news article, which has no id, by its address', () => {
    const article = (url: string): Flag => ({
      type: 'adverse_media',
      source: 'gdelt',
      list: 'ADVERSE_MEDIA',
      match_score: 0.8,
      details: { title: 'Fraud charges', url, matched_name: 'x', match_explanation: {} },
    });
    const [a, b, c] = identifyFlags([
      article('https://news.example/a'),
      article('https://news.example/a'),
      article('https://news.example/b'),
    ]);
    expect(a!.id).toMatch(/^gdelt:[0-9a-f]{16}$/);
    expect(b!.id).toBe(a!.id);
    expect(c!.id).not.toBe(a!.id);
  });
});
