import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type AuditEntry, auditRowHash, GENESIS_HASH } from '../../../src/audit/audit-chain.js';

const entry: AuditEntry = {
  id: '5f1d7c1e-0000-4000-8000-000000000001',
  request_id: 'r1',
  occurred_at: new Date('2026-03-01T10:00:00.123Z'),
  account_id: '5f1d7c1e-0000-4000-8000-0000000000aa',
  key_id: null,
  key_prefix: null,
  key_last4: null,
  method: 'GET',
  route: '/dashboard/keys',
  path: '/dashboard/keys',
  status: 200,
  latency_ms: 1.234,
  client_ip: '127.0.0.1',
  user_agent: 'test',
};

describe('audit rows of dashboard requests', () => {
  it('hash rows without a user exactly as before the user column existed, so older chains still verify', () => {
    // The row hash as it was defined before migration 0007 added `user_id`.
    const fields = [
      1,
      entry.id,
      entry.request_id,
      entry.occurred_at.toISOString(),
      entry.account_id,
      entry.key_id,
    ];
    const rest = [entry.key_prefix, entry.key_last4, entry.method, entry.route, entry.path, entry.status];
    const tail = [entry.latency_ms, entry.client_ip, entry.user_agent];
    const before = createHash('sha256')
      .update(GENESIS_HASH)
      .update('\n')
      .update(JSON.stringify([...fields, ...rest, ...tail]))
      .digest('hex');
    expect(auditRowHash(GENESIS_HASH, 1, entry)).toBe(before);
    expect(auditRowHash(GENESIS_HASH, 1, { ...entry, user_id: null })).toBe(before);
    expect(auditRowHash(GENESIS_HASH, 1, { ...entry, user_id: undefined })).toBe(before);
  });

  it('cover the user: changing who made the request breaks the hash', () => {
    const alice = auditRowHash(GENESIS_HASH, 1, {
      ...entry,
      user_id: '5f1d7c1e-0000-4000-8000-0000000000a1',
    });
    const bob = auditRowHash(GENESIS_HASH, 1, { ...entry, user_id: '5f1d7c1e-0000-4000-8000-0000000000b0' });
    expect(alice).not.toBe(bob);
    expect(alice).not.toBe(auditRowHash(GENESIS_HASH, 1, entry));
  });
});
