/**
 * How a screening's birth date compares with a listed record's, at the precision both give. A full
 * date shared by both sides is told apart from a coarser agreement (a year, a month) because it is
 * far stronger evidence: two unrelated adults share a year of birth about one time in twenty, a
 * full date about one time in twenty thousand. Except 1 January, which lists and registries write
 * for a year alone (far more of the lists' full dates fall on it than on any other day): sharing it
 * is a coarse agreement only.
 */
export type BirthDateAgreement = 'same day' | 'match' | 'near' | 'mismatch' | 'unknown';

/** Agreements from the strongest down: a record's best one counts. */
const STRENGTH: readonly BirthDateAgreement[] = ['same day', 'match', 'near', 'mismatch', 'unknown'];
const stronger = (a: BirthDateAgreement, b: BirthDateAgreement) =>
  STRENGTH.indexOf(a) <= STRENGTH.indexOf(b) ? a : b;

/** The years (and, when stated, the day or month) a record's birth date covers. */
interface DateSpan {
  from: string;
  to: string;
  /** Precision of the coarser end: 4 (year), 7 (month) or 10 (day) characters. */
  precision: number;
}

const PARTIAL_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;
const FULL_DATE_LENGTH = 10;

/** Whether a full date is 1 January, the day written for a year alone. */
function isFirstOfJanuary(date: string): boolean {
  return date.endsWith('-01-01');
}

function spanOf(date: string): DateSpan | undefined {
  const [from = '', to = from] = date.split('/');
  if (!PARTIAL_DATE.test(from) || !PARTIAL_DATE.test(to)) return undefined;
  return { from, to, precision: Math.min(from.length, to.length) };
}

/**
 * The best agreement of the query's birth date (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`) with any of the
 * record's: `same day` when both state the same full date (not 1 January); `match` when they agree
 * at the precision both give, to the month when both state it, else by year with a year either way
 * (lists round and write "circa"; a range counts as its years); `near` when a date stated to the
 * month or day differs only as another source may record the same birth (a year off, or day and
 * month swapped: `nearDate`); `mismatch` when it contradicts every one of them.
 */
export function birthDateAgreement(query: string, record: readonly string[]): BirthDateAgreement {
  const spans = record.flatMap((date) => spanOf(date) ?? []);
  if (spans.length === 0) return 'unknown';
  let agreement: BirthDateAgreement = 'mismatch';
  for (const span of spans) {
    const precision = Math.min(query.length, span.precision);
    if (precision >= 7 && span.from === span.to) {
      if (query.slice(0, precision) !== span.from.slice(0, precision)) {
        if (nearDate(query.slice(0, precision), span.from.slice(0, precision)))
          agreement = stronger(agreement, 'near');
        continue;
      }
      if (precision === FULL_DATE_LENGTH && !isFirstOfJanuary(query)) return 'same day';
      agreement = 'match';
      continue;
    }
    const year = Number(query.slice(0, 4));
    if (year >= Number(span.from.slice(0, 4)) - 1 && year <= Number(span.to.slice(0, 4)) + 1)
      agreement = 'match';
  }
  return agreement;
}

/**
 * Two dates of one precision (`YYYY-MM` or `YYYY-MM-DD`) that differ as two records of one birth
 * do: the same month (and day) a year apart, a typing or rounding slip; or, for full dates, day
 * and month swapped (`1975-03-08` against `1975-08-03`), the American order read as the European.
 */
function nearDate(a: string, b: string): boolean {
  const [ya = '', ma = '', da] = a.split('-');
  const [yb = '', mb = '', db] = b.split('-');
  if (ma === mb && da === db && Math.abs(Number(ya) - Number(yb)) === 1) return true;
  return da !== undefined && ya === yb && ma === db && da === mb;
}

/** Whether the query's birth date agrees with any of the record's, whatever the precision. */
export function compareBirthDate(
  query: string,
  record: readonly string[],
): 'match' | 'near' | 'mismatch' | 'unknown' {
  const agreement = birthDateAgreement(query, record);
  return agreement === 'same day' ? 'match' : agreement;
}
