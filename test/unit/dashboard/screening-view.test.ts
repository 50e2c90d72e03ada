import { describe, expect, it } from 'vitest';
import { flagView, screeningView } from '../../../src/dashboard/screening-view.js';
import type { ScreeningResult } from '../../../src/screening/screening-result.js';

describe('a flag as the console shows it', () => {
  const flag = {
    type: 'sanctions' as const,
    source: 'uk_fcdo',
    list: 'UK_SANCTIONS_LIST',
    match_score: 0.91234,
    details: {
      name: 'BNK (UK) Ltd',
      aliases: [{ name: 'BNK UK Limited', type: 'aka' }],
      programs: ['Belarus'],
      identifiers: [{ type: 'company_number', value: '06527449', country: 'GB' }],
      remarks: null,
      matched_name: 'BNK UK Limited',
      match_explanation: {
        matched_name: 'BNK UK Limited',
        method: 'transliterated',
        prepared_query: 'bnk uk limitd',
        prepared_name: 'bnk uk limited',
        token_pairs: [{ query: 'limitd', candidate: 'limited', score: 0.971, how: 'fuzzy' }],
        unmatched_query_tokens: [],
        unmatched_name_tokens: ['plc'],
        penalties: [{ reason: 'unmatched name token', factor: 0.95, tokens: ['plc'] }],
      },
      source_record: { UniqueID: 'RUS0001' },
      extra_field: 'kept',
    },
  };

  it('keeps the columns, the score to two decimals and the name that matched', () => {
    expect(flagView(flag)).toMatchObject({
      type: 'sanctions',
      source: 'uk_fcdo',
      list: 'UK_SANCTIONS_LIST',
      score: '0.91',
      matchedName: 'BNK UK Limited',
    });
  });

  it('writes the explanation out: token pairs, unmatched tokens and penalties as text', () => {
    expect(flagView(flag).explanation).toEqual({
      matchedName: 'BNK UK Limited',
      method: 'transliterated',
      preparedQuery: 'bnk uk limitd',
      preparedName: 'bnk uk limited',
      pairs: [{ query: 'limitd', candidate: 'limited', how: 'fuzzy', score: '0.97' }],
      unmatchedQuery: [],
      unmatchedName: ['plc'],
      penalties: ['unmatched name token, score × 0.95, tokens: plc'],
    });
  });

  it('says a record is of another kind than the type screened only when it is', () => {
    const kinds = (kind_mismatch: boolean) =>
      flagView({ ...flag, details: { ...flag.details, kind_mismatch } }).facts.filter(
        (fact) => fact.label === 'Kind mismatch',
      );
    expect(kinds(false)).toEqual([]);
    expect(kinds(true)).toEqual([
      { label: 'Kind mismatch', value: 'of another kind than the type screened (score lowered)' },
    ]);
  });

  it('lists the record’s non-empty fields as facts, unknown ones too, and keeps the source record apart', () => {
    const view = flagView(flag);
    expect(view.facts).toEqual([
      { label: 'Listed name', value: 'BNK (UK) Ltd' },
      { label: 'Other names', value: 'BNK UK Limited, type: aka' },
      { label: 'Programmes', value: 'Belarus' },
      { label: 'Identifiers', value: 'type: company_number, 06527449, country: GB' },
      { label: 'Extra field', value: 'kept' },
    ]);
    expect(JSON.parse(view.sourceRecord!)).toEqual({ UniqueID: 'RUS0001' });
  });

  it('shows a flag without an explanation (a provider’s) without failing', () => {
    const view = flagView({
      type: 'adverse_media',
      source: 'gdelt',
      list: 'ADVERSE_MEDIA',
      match_score: 0.6,
      details: {},
    });
    expect(view.explanation).toBeUndefined();
    expect(view.facts).toEqual([]);
    expect(view.sourceRecord).toBeUndefined();
  });
});

describe('a screening as the console shows it', () => {
  it('names each stale list it searched with its publication date and age', () => {
    const result = {
      id: 'x',
      entity: 'acme',
      request: null,
      risk_score: 0,
      risk_level: 'low',
      flags: [],
      sources_queried: ['ofac_sdn', 'un_sc'],
      sources_matched: [],
      sources_failed: [],
      complete: true,
      sources_stale: [{ source: 'ofac_sdn', list_date: '2023-12-28', list_age_days: 1070 }],
      cache_hit: false,
      duration_ms: 1,
      timestamp: '2026-12-02T00:00:00.000Z',
    } satisfies ScreeningResult;
    expect(screeningView(result).staleLists).toEqual([
      {
        id: 'ofac_sdn',
        name: 'OFAC Specially Designated Nationals (SDN)',
        published: 'published 2023-12-28, 1070 days before the screening',
      },
    ]);
  });
});
