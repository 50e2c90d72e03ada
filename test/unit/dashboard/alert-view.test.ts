import { describe, expect, it } from 'vitest';
import { alertRowView, alertStatusFilter } from '../../../src/dashboard/alert-view.js';
import type { AlertView } from '../../../src/screening/monitoring/alert-store.js';

const ALERT: AlertView = {
  id: '0b7c1a52-6a57-4a43-9b1b-7b2a8b1e0c11',
  monitor_id: '5d7f3c1e-2b5a-4c8e-8f1d-3a9b6c2e4d10',
  reference: 'customer-1',
  screening_id: '8e2d4f6a-1c3b-4e5d-9a7f-0b1c2d3e4f50',
  flags: [
    {
      id: 'un_sc:6907995',
      type: 'sanctions',
      source: 'un_sc',
      list: 'UN_CONSOLIDATED',
      match_score: 0.987,
      details: { name: 'GASTON IYAMUREMYE', record_hash: 'abc' },
    },
  ],
  reason: 'record_removed',
  list: 'un_sc',
  list_version: '86966bd611e109a533d83d2b07701f44274d4b8b89d628eef2265c03e5ae7ab2',
  created_at: '2026-03-10T09:00:00.000Z',
  status: 'open',
  note: null,
  closed_at: null,
  closed_by: null,
};

describe('an alert as the inbox shows it', () => {
  it('writes the reason out, names the list and the record, and shortens the version', () => {
    expect(alertRowView(ALERT, 'Gaston Iyamuremye')).toMatchObject({
      subject: 'Gaston Iyamuremye',
      reason: 'Record removed from the list',
      removed: true,
      list: 'UN Security Council Consolidated List',
      listVersion: '86966bd611e1',
      recordName: 'GASTON IYAMUREMYE',
      score: '0.99',
      open: true,
    });
  });

  it('shows an alert without a record by its list alone', () => {
    expect(alertRowView({ ...ALERT, flags: [] }, undefined)).toMatchObject({
      subject: '',
      recordName: '',
      score: '',
    });
  });

  it('reads an unknown status filter as open alerts', () => {
    expect(alertStatusFilter('closed')).toBe('closed');
    expect(alertStatusFilter('all')).toBe('all');
    expect(alertStatusFilter('<script>')).toBe('open');
    expect(alertStatusFilter(undefined)).toBe('open');
  });
});
