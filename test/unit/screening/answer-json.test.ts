import { describe, expect, it } from 'vitest';
import { answerJson, type StoredResult } from '../../../src/screening/screening-result.js';

const stored: StoredResult = {
  id: '0b6f4f55-3f0e-4b8e-9a57-2c1f1f0a9d11',
  entity: 'acme "duration_ms": trading',
  risk_score: 60,
  risk_level: 'high',
  flags: [
    {
      type: 'sanctions',
      source: 'ofac_sdn',
      list: 'OFAC SDN',
      match_score: 1,
      details: { remarks: ',"duration_ms":12}', duration_ms: 5 },
    },
  ],
  sources_queried: ['ofac_sdn'],
  sources_matched: ['ofac_sdn'],
  timestamp: '2026-11-24T10:00:00.000Z',
  duration_ms: 41.5,
};

describe('a screening answered from its stored JSON text', () => {
  it("is the stored result with this answer's cache_hit and duration_ms, whatever the values hold", () => {
    for (const cacheHit of [true, false]) {
      const text = answerJson(JSON.stringify(stored), cacheHit, 3.25);
      expect(JSON.parse(text)).toEqual({ ...stored, cache_hit: cacheHit, duration_ms: 3.25 });
    }
  });

  it('takes the long way for a text whose last key is not duration_ms, with the same answer', () => {
    const { duration_ms, ...rest } = stored;
    const reordered = JSON.stringify({ duration_ms, ...rest });
    expect(JSON.parse(answerJson(reordered, true, 7))).toEqual({
      ...stored,
      cache_hit: true,
      duration_ms: 7,
    });
  });
});
