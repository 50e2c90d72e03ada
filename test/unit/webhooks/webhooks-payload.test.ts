import { describe, expect, it } from 'vitest';
import type { StoredResult } from '../../../src/screening/screening-result.js';
import { screeningCompletePayload } from '../../../src/webhooks/webhook-outbox.js';

describe('screening.complete payload', () => {
  it('is byte for byte the event object with the result as answered, built from the stored JSON', () => {
    const result: StoredResult = {
      id: '0b9d1c5e-7c1a-4a52-9d3e-8c1f0e2a4b6d',
      entity: 'ivan "the" petrov \u00e9',
      risk_score: 60,
      risk_level: 'high',
      flags: [],
      sources_queried: ['un_sc'],
      sources_matched: [],
      duration_ms: 4.2,
      timestamp: '2026-11-22T09:00:00.000Z',
    } as unknown as StoredResult;
    expect(screeningCompletePayload(result, JSON.stringify(result))).toBe(
      JSON.stringify({
        event: 'screening.complete',
        screening_id: result.id,
        timestamp: result.timestamp,
        data: { ...result, cache_hit: false },
      }),
    );
  });
});
