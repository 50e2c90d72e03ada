import { describe, expect, it } from 'vitest';
import type { MonthOfScreenings } from '../../../src/accounts/usage-history.js';
import { CHART_HEIGHT, CHART_WIDTH, monthChart } from '../../../src/dashboard/chart.js';

function month(first: string, counts: Record<number, number>, days: number): MonthOfScreenings {
  const list = Array.from({ length: days }, (_, i) => ({
    date: `${first.slice(0, 8)}${String(i + 1).padStart(2, '0')}`,
    count: counts[i + 1] ?? 0,
  }));
  return { month: first, days: list, total: list.reduce((sum, d) => sum + d.count, 0) };
}

describe('the usage chart', () => {
  it('draws one bar per day, in order, within the drawing box, the busiest reaching a round top', () => {
    const chart = monthChart(month('2026-02-01', { 1: 3, 14: 50, 28: 7 }, 28));
    expect(chart.bars).toHaveLength(28);
    expect(chart.title).toBe('February 2026');
    const xs = chart.bars.map((b) => b.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    for (const bar of chart.bars) {
      expect(bar.x).toBeGreaterThanOrEqual(0);
      expect(bar.x + bar.width).toBeLessThanOrEqual(CHART_WIDTH);
      expect(bar.y).toBeGreaterThanOrEqual(0);
      expect(bar.y + bar.height).toBeLessThanOrEqual(CHART_HEIGHT);
    }
    expect(chart.valueLabels[0]!.text).toBe('50');
    expect(chart.bars[13]!.height).toBeGreaterThan(chart.bars[27]!.height);
    expect(chart.bars[27]!.height).toBeGreaterThan(chart.bars[0]!.height);
    expect(chart.bars[1]!.height).toBe(0);
    expect(chart.summary).toBe(
      '60 screenings stored in February 2026; the busiest day was 14 February with 50.',
    );
  });

  it('scales to 1, 2 or 5 times a power of ten, so the axis reads naturally', () => {
    const top = (max: number) => monthChart(month('2026-03-01', { 5: max }, 31)).valueLabels[0]!.text;
    expect([1, 2, 3, 7, 12, 180, 2001].map(top)).toEqual(['1', '2', '5', '10', '20', '200', '5000']);
  });

  it('says so when a month has no screenings, with empty bars', () => {
    const chart = monthChart(month('2026-04-01', {}, 30));
    expect(chart.summary).toBe('No screenings stored in April 2026.');
    expect(chart.bars.every((b) => b.height === 0)).toBe(true);
  });
});
