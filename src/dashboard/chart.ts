import type { MonthOfScreenings } from '../accounts/usage-history.js';

/** The chart's drawing box (SVG user units): it scales to the page width, so only proportions matter. */
export const CHART_WIDTH = 320;
export const CHART_HEIGHT = 150;
const PLOT_LEFT = 28;
const PLOT_RIGHT = 316;
const PLOT_TOP = 8;
const PLOT_BOTTOM = 128;
const BAR_GAP_RATIO = 0.25;

export interface ChartBar {
  x: number;
  y: number;
  width: number;
  height: number;
  date: string;
  count: number;
}

export interface ChartLabel {
  x: number;
  y: number;
  text: string;
}

/** A month's screenings per day as bars: pure geometry that the template writes as SVG attributes. */
export interface MonthChart {
  id: string;
  title: string;
  summary: string;
  total: number;
  width: number;
  height: number;
  baseline: { x1: number; x2: number; y: number };
  bars: ChartBar[];
  dayLabels: ChartLabel[];
  valueLabels: ChartLabel[];
  days: MonthOfScreenings['days'];
}

const MONTH_NAME = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const DAY_NAME = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' });

/** The smallest of 1, 2, 5 × 10^n at or above the value: a round top for the scale. */
function roundedTop(max: number): number {
  if (max <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export function monthChart(month: MonthOfScreenings): MonthChart {
  const title = MONTH_NAME.format(new Date(`${month.month}T00:00:00Z`));
  const top = roundedTop(Math.max(0, ...month.days.map((d) => d.count)));
  const slot = (PLOT_RIGHT - PLOT_LEFT) / month.days.length;
  const plotHeight = PLOT_BOTTOM - PLOT_TOP;
  const bars = month.days.map((day, i) => {
    const height = round((day.count / top) * plotHeight);
    return {
      x: round(PLOT_LEFT + i * slot + (slot * BAR_GAP_RATIO) / 2),
      y: round(PLOT_BOTTOM - height),
      width: round(slot * (1 - BAR_GAP_RATIO)),
      height,
      date: DAY_NAME.format(new Date(`${day.date}T00:00:00Z`)),
      count: day.count,
    };
  });
  const busiest = month.days.reduce((best, d) => (d.count > best.count ? d : best), month.days[0]!);
  const summary =
    month.total === 0
      ? `No screenings stored in ${title}.`
      : `${month.total} ${month.total === 1 ? 'screening' : 'screenings'} stored in ${title}; the busiest day was ${DAY_NAME.format(new Date(`${busiest.date}T00:00:00Z`))} with ${busiest.count}.`;
  return {
    id: `chart-${month.month.slice(0, 7)}`,
    title,
    summary,
    total: month.total,
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    baseline: { x1: PLOT_LEFT, x2: PLOT_RIGHT, y: PLOT_BOTTOM },
    bars,
    // Days 1, 8, 15, 22 and 29 under their bars; the scale's top and zero beside the plot.
    dayLabels: [1, 8, 15, 22, 29]
      .filter((day) => day <= month.days.length)
      .map((day) => ({ x: round(PLOT_LEFT + (day - 0.5) * slot), y: PLOT_BOTTOM + 14, text: String(day) })),
    valueLabels: [
      { x: PLOT_LEFT - 4, y: PLOT_TOP + 4, text: String(top) },
      { x: PLOT_LEFT - 4, y: PLOT_BOTTOM, text: '0' },
    ],
    days: month.days,
  };
}
