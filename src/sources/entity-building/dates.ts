import type { BirthDate, PartialDate } from '../list-entity.js';
import { clean } from './text.js';

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const pad = (n: number): string => String(n).padStart(2, '0');

function validYear(year: number): boolean {
  return year >= 1000 && year <= 2999;
}

/** Builds 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD' from numbers; zero or missing parts drop precision. */
export function partialDate(year: number, month?: number, day?: number): PartialDate | undefined {
  if (!validYear(year)) return undefined;
  if (!month || month < 1 || month > 12) return `${year}` as PartialDate;
  if (!day || day < 1 || day > 31) return `${year}-${pad(month)}` as PartialDate;
  return `${year}-${pad(month)}-${pad(day)}` as PartialDate;
}

function monthNumber(word: string): number | undefined {
  return MONTHS[word.toLowerCase().replace(/\.$/, '').slice(0, 4)] ?? MONTHS[word.toLowerCase().slice(0, 3)];
}

/**
 * One date in any of the forms the lists use: ISO ('1962-03-05', with or without a time),
 * day/month/year ('05/03/1962', placeholders like 'dd/mm/1962' or '00/00/1962'), month/year
 * ('03/1962'), English ('5 Mar 1962', 'Mar. 1962', 'March 1962'), or a bare year.
 */
export function parseDate(value: string | undefined): PartialDate | undefined {
  const text = clean(value)?.replace(/^(circa|approximately|approx\.?|about|c\.)\s*/i, '');
  if (!text) return undefined;
  let m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:T.*)?$/.exec(text);
  if (m) return partialDate(Number(m[1]), num(m[2]), num(m[3]));
  m = /^(\d{1,2}|dd|DD)[/.-](\d{1,2}|mm|MM)[/.-](\d{4})$/.exec(text);
  if (m) return partialDate(Number(m[3]), num(m[2]), num(m[1]));
  m = /^(\d{1,2}|mm|MM)[/.-](\d{4})$/.exec(text);
  if (m) return partialDate(Number(m[2]), num(m[1]));
  m = /^(\d{1,2})\s+([A-Za-z]{3,9}\.?)\s+(\d{4})$/.exec(text);
  if (m) return withMonth(Number(m[3]), m[2]!, Number(m[1]));
  m = /^([A-Za-z]{3,9}\.?)\s+(\d{4})$/.exec(text);
  if (m) return withMonth(Number(m[2]), m[1]!);
  return undefined;
}

function num(text: string | undefined): number | undefined {
  return text && /^\d+$/.test(text) ? Number(text) : undefined;
}

function withMonth(year: number, monthWord: string, day?: number): PartialDate | undefined {
  const month = monthNumber(monthWord);
  return month ? partialDate(year, month, day) : undefined;
}

/** A range 'FROM/TO'; equal ends collapse to one date, reversed ends are put in order. */
export function dateRange(from: PartialDate | undefined, to: PartialDate | undefined): BirthDate | undefined {
  if (!from || !to) return from ?? to;
  if (from === to) return from;
  return (from < to ? `${from}/${to}` : `${to}/${from}`) as BirthDate;
}

/** A birth date or range: everything `parseDate` reads, plus '1962 to 1964', 'between X and Y'. */
export function parseBirthDate(value: string | undefined): BirthDate | undefined {
  const text = clean(value);
  if (!text) return undefined;
  const m = /^(?:between\s+)?(.+?)\s+(?:to|and|-)\s+(.+)$/i.exec(text);
  if (m) {
    const to = parseDate(m[2]);
    // "Aug. and Sep. 1977": the first end borrows the year of the second.
    const from = parseDate(m[1]) ?? (to ? parseDate(`${m[1]} ${to.slice(0, 4)}`) : undefined);
    if (from && to) return dateRange(from, to);
  }
  return parseDate(text);
}

/** A full calendar date 'YYYY-MM-DD' (listing and publication dates), else undefined. */
export function parseFullDate(value: string | undefined): string | undefined {
  const date = parseDate(value);
  return date && date.length === 10 ? date : undefined;
}
