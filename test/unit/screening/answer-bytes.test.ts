import { describe, expect, it } from 'vitest';
import {
  answerBytes,
  decodeResult,
  encodeResult,
  looksLikeStoredResult,
  type StoredResult,
} from '../../../src/screening/screening-result.js';

const stored: StoredResult = {
  id: '0b6f4f55-3f0e-4b8e-9a57-2c1f1f0a9d11',
  entity: 'acme "duration_ms": trading',
  request: {
    query: 'ACME ,"duration_ms":12} Trading',
    type: 'organization',
    date_of_birth: null,
    countries: ['GB'],
    identifiers: [{ type: 'company_number', value: '"duration_ms":1}' }],
    options: { threshold: 0.5, sources: ['ofac_sdn'], include_adverse_media: false },
  },
  risk_score: 60,
  risk_level: 'high',
  flags: [
    {
      id: 'ofac_sdn:1',
      type: 'sanctions',
      source: 'ofac_sdn',
      list: 'OFAC SDN',
      match_score: 1,
      details: { remarks: ',"duration_ms":12}', duration_ms: 5 },
    },
  ],
  sources_queried: ['ofac_sdn'],
  sources_matched: ['ofac_sdn'],
  sources_failed: [],
  complete: true,
  sources_stale: [],
  timestamp: '2026-11-24T10:00:00.000Z',
  duration_ms: 41.5,
};

const answered = (bytes: Buffer) => JSON.parse(bytes.toString('utf8'));

describe('a screening answered from its stored JSON bytes', () => {
  it("is the stored result with this answer's cache_hit and duration_ms, whatever the values hold", () => {
    for (const cacheHit of [true, false]) {
      const bytes = answerBytes(encodeResult(stored), cacheHit, 3.25);
      expect(answered(bytes)).toEqual({ ...stored, cache_hit: cacheHit, duration_ms: 3.25 });
    }
  });

  it('is the stored bytes up to duration_ms and a new tail, without re-serialising the result', () => {
    const json = JSON.stringify(stored);
    const head = json.slice(0, json.lastIndexOf(',"duration_ms":'));
    expect(answerBytes(encodeResult(stored), true, 3.25).toString('utf8')).toBe(
      `${head},"cache_hit":true,"duration_ms":3.25}`,
    );
  });

  it('keeps every script and character exactly, through the bytes and back', () => {
    const names = ['صدام حسين', 'Ṣaddām Ḥusayn', '金正恩', 'Ким Чен Ын', '🛳️', 'Jose\u0301', 'İstanbul'];
    const result = {
      ...stored,
      entity: names.join(' '),
      flags: [{ ...stored.flags[0]!, details: { names } }],
    };
    const bytes = encodeResult(result);
    expect(decodeResult(bytes)).toEqual(result);
    expect(answered(answerBytes(bytes, true, 1))).toEqual({ ...result, cache_hit: true, duration_ms: 1 });
  });

  it('leaves the stored bytes as they were', () => {
    const bytes = encodeResult(stored);
    const before = Buffer.from(bytes);
    answerBytes(bytes, true, 9);
    expect(bytes.equals(before)).toBe(true);
  });

  it('refuses bytes whose last key is not duration_ms rather than answer them wrong', () => {
    const { duration_ms, ...rest } = stored;
    const reordered = Buffer.from(JSON.stringify({ duration_ms, ...rest }), 'utf8');
    expect(looksLikeStoredResult(reordered)).toBe(false);
    expect(() => answerBytes(reordered, true, 7)).toThrow(/stored result/);
  });
});

describe('what the cache may answer from', () => {
  it('is a stored result, and not bytes that end otherwise (foreign, damaged or cut short)', () => {
    expect(looksLikeStoredResult(encodeResult(stored))).toBe(true);
    const json = JSON.stringify(stored);
    for (const other of [
      '',
      'not json at all',
      json.slice(0, -1),
      json.slice(0, 40),
      `${json.slice(0, -1)}é}`,
      JSON.stringify({ ...stored, duration_ms: 'soon' }),
    ])
      expect(looksLikeStoredResult(Buffer.from(other, 'utf8'))).toBe(false);
  });
});
