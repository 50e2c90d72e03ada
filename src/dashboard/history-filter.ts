import { normaliseQuery } from '../screening/normalise-query.js';
import { RISK_LEVEL_FLOORS, type RiskLevel } from '../screening/risk.js';
import type { ScreeningHistoryFilter } from '../screening/screening-history.js';

/** The history search form as typed, and the filter it makes. */
export interface HistorySearch {
  form: { name: string; reference: string; risk: string; from: string; to: string };
  filter: ScreeningHistoryFilter;
  /** Whether anything narrows the list (the empty-list message differs). */
  active: boolean;
  /** The search as a query string, carried by the pager's links. */
  query: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const LEVELS = RISK_LEVEL_FLOORS.map(([level]) => level) as readonly string[];

/** A `YYYY-MM-DD` day as its first instant (UTC), or undefined when it is not one. */
function day(text: string): Date | undefined {
  if (!DAY.test(text)) return undefined;
  const date = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * The history search: part of the name (compared as names are stored: normalised), the exact
 * reference, a risk level, and the days from and to (both included). What cannot be read (a
 * malformed day, an unknown level) narrows nothing.
 */
export function historyFilter(query: Record<string, string | undefined>): HistorySearch {
  const form = {
    name: (query.name ?? '').trim(),
    reference: (query.reference ?? '').trim(),
    risk: LEVELS.includes(query.risk ?? '') ? (query.risk as string) : '',
    from: (query.from ?? '').trim(),
    to: (query.to ?? '').trim(),
  };
  const to = day(form.to);
  const filter: ScreeningHistoryFilter = {
    name: form.name ? normaliseQuery(form.name) : undefined,
    reference: form.reference || undefined,
    riskLevel: (form.risk || undefined) as RiskLevel | undefined,
    from: day(form.from),
    until: to ? new Date(to.getTime() + 24 * 60 * 60 * 1000) : undefined,
  };
  const params = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ''));
  return { form, filter, active: params.size > 0, query: params.toString() };
}
