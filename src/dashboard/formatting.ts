import type { ErrorCode } from '../errors.js';
import { PROBLEMS } from '../http/problems.js';

/** Formatting shared by the templates: every time is shown in UTC, the service's own time zone. */
const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});
const DATE_TIME_SECONDS = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZone: 'UTC',
});
const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });
const NUMBER = new Intl.NumberFormat('en-GB');
const PLAN_NAMES: Record<string, string> = {
  starter: 'Starter',
  professional: 'Professional',
  enterprise: 'Enterprise',
};

const RISK_NAMES: Record<string, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

export const templateHelpers = {
  /** A risk level written out: the badge's colour is never the only sign of it. */
  riskName: (level: string) => RISK_NAMES[level] ?? level,
  /**
   * The risk badge's class. A screening that left an official list unchecked (`complete` false)
   * never shows its low risk in the reassuring green: a higher level keeps its colour (it stands
   * whatever the missing list says). Null: a screening stored before `complete` was.
   */
  riskClass: (level: string, complete: boolean | null) =>
    complete === false && level === 'low' ? 'risk-incomplete' : `risk-${level}`,
  /** The level written out, with "incomplete" when an official list was not checked. */
  riskLabel: (level: string, complete: boolean | null) =>
    `${RISK_NAMES[level] ?? level}${complete === false ? ', incomplete' : ''}`,
  dateTime: (iso: string) => `${DATE_TIME.format(new Date(iso))} UTC`,
  /** To the second: audit rows close together are told apart. */
  dateTimeSeconds: (iso: string) => DATE_TIME_SECONDS.format(new Date(iso)),
  date: (iso: string) => DATE.format(new Date(iso)),
  number: (value: number) => NUMBER.format(value),
  /** A count with its noun: `1 screening`, `2 screenings`. */
  count: (value: number, noun: string) => `${NUMBER.format(value)} ${value === 1 ? noun : `${noun}s`}`,
  planName: (plan: string) => PLAN_NAMES[plan] ?? plan,
  /** A problem type (an imported monitor's failed first screening) by its title; unknown: as is. */
  problemTitle: (code: string | null) =>
    code !== null && code in PROBLEMS ? PROBLEMS[code as ErrorCode].title : (code ?? 'unknown problem'),
  /** How a key is shown after creation: its prefix and last four characters. */
  maskedKey: (key: { prefix: string; last4: string }) => `${key.prefix}…${key.last4}`,
};
