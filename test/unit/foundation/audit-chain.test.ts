import { describe, expect, it } from 'vitest';
import { type AuditEntry, auditRowHash, GENESIS_HASH } from '../../../src/audit/audit-chain.js';

const entry: AuditEntry = {
  id: '5f1d7c1e-0000-4000-8000-000000000001',
  request_id: 'r1',
  occurred_at: new Date('2026-03-01T10:00:00.123Z'),
  account_id: '5f1d7c1e-0000-4000-8000-0000000000aa',
  key_id: null,
  key_prefix: 'cs_live_',
  key_last4: 'abcd',
  method: 'GET',
  route: '/v1/usage',
  path: '/v1/usage',
  status: 200,
  latency_ms: 1.234,
  client_ip: '127.0.0.1',
  user_agent: 'test',
};

describe('audit hash chain', () => {
  it('is deterministic for the same row and predecessor', () => {
    expect(auditRowHash(GENESIS_HASH, 1, entry)).toBe(auditRowHash(GENESIS_HASH, 1, { ...entry }));
    expect(auditRowHash(GENESIS_HASH, 1, entry)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each(Object.keys(entry) as (keyof AuditEntry)[])('changes when the field %s changes', (field) => {
    const edited = {
      ...entry,
      [field]: field === 'occurred_at' ? new Date(0) : field === 'status' || field === 'latency_ms' ? 1 : 'x',
    };
    expect(auditRowHash(GENESIS_HASH, 1, edited)).not.toBe(auditRowHash(GENESIS_HASH, 1, entry));
  });

  it('changes with the position in the chain and with the previous hash', () => {
    const base = auditRowHash(GENESIS_HASH, 1, entry);
    expect(auditRowHash(GENESIS_HASH, 2, entry)).not.toBe(base);
    expect(auditRowHash('1'.repeat(64), 1, entry)).not.toBe(base);
  });
});
