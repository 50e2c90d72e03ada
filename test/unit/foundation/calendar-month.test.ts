import { describe, expect, it } from 'vitest';
import { monthOf, nextMonthStart } from '../../../src/accounts/usage.js';

describe('calendar months of the quota (UTC)', () => {
  it.each([
    ['2026-01-31T23:59:59.999Z', '2026-01-01', '2026-02-01T00:00:00.000Z'],
    ['2026-02-01T00:00:00.000Z', '2026-02-01', '2026-03-01T00:00:00.000Z'],
    ['2026-12-15T12:00:00.000Z', '2026-12-01', '2027-01-01T00:00:00.000Z'],
    ['2028-02-29T10:00:00.000Z', '2028-02-01', '2028-03-01T00:00:00.000Z'],
  ])('at %s the month is %s and the reset is %s', (now, month, reset) => {
    expect(monthOf(new Date(now))).toBe(month);
    expect(nextMonthStart(new Date(now)).toISOString()).toBe(reset);
  });
});
