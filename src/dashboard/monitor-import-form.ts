import type { FieldError } from '../errors.js';
import { ServiceError } from '../errors.js';
import { MONITOR_IMPORT_MAX } from '../screening/monitoring/monitoring-policy.js';
import { formRefusal } from './form-errors.js';

/**
 * The largest import form the dashboard takes (the other forms take 16 KB): a pasted or read CSV
 * travels urlencoded, so its bytes grow by about a third. Larger lists go through the API, which
 * takes a CSV body as it is, up to MONITOR_IMPORT_MAX parties.
 */
export const IMPORT_FORM_BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/**
 * About how many rows fit in that: a row of name, type, reference, birth date and country
 * (`Jane Doe,person,customer-000123,1980-04-12,GB`, ~45 bytes) is ~60 once urlencoded with its
 * line break. Names in other scripts take more (each character up to 9 bytes encoded).
 */
export const IMPORT_FORM_ROWS_ROUGHLY = 80_000;
/** Bad rows the refused form lists; the rest are counted. A 100,000-row page helps no one. */
export const IMPORT_ROWS_LISTED = 100;
/** The columns submissionFromCsv reads, in the order the hint names them. */
export const IMPORT_COLUMNS = ['query', 'type', 'reference', 'date_of_birth', 'countries', 'identifiers'];

/** One bad row of a refused CSV: its line in the file and what each of its cells got wrong. */
export interface RowProblem {
  line: number;
  problems: Array<{ column: string; detail: string }>;
}

/** What the import form shows: the CSV sent (to fix and send again) and why it was refused. */
export interface ImportForm {
  csv: string;
  /** The refusal as a whole (plan, limit, quota, how many rows are bad). */
  error?: string | undefined;
  /** What is wrong with the text itself (empty, unreadable, a bad header, too many rows). */
  csvError?: string | undefined;
  rows?: RowProblem[] | undefined;
  /** Bad rows beyond those listed. */
  moreRows?: number | undefined;
}

/** The form's state and the limits its hint states, for the template. */
export function importFormData(form: ImportForm | undefined) {
  return {
    csv: '',
    rows: [],
    moreRows: 0,
    ...form,
    bodyLimitBytes: IMPORT_FORM_BODY_LIMIT_BYTES,
    bodyLimitMb: IMPORT_FORM_BODY_LIMIT_BYTES / (1024 * 1024),
    rowsRoughly: IMPORT_FORM_ROWS_ROUGHLY,
    importMax: MONITOR_IMPORT_MAX,
    columns: IMPORT_COLUMNS,
  };
}

/**
 * An import refused, as the form shows it: a 422's problems grouped by CSV line (`lines`, each
 * item's line as submissionFromCsv read it; without them item i is line i + 2, after the header);
 * other refusals (402, 403, 429, a list away) as the form's error. Anything else is rethrown (the
 * error page).
 */
export function importRefusal(
  error: unknown,
  csv: string,
  lines: readonly number[] | undefined,
): { status: number; form: ImportForm } {
  const refusal = formRefusal(error, () => undefined);
  const form: ImportForm = { csv, error: refusal.error };
  if (!(error instanceof ServiceError) || error.code !== 'validation-failed')
    return { status: refusal.status, form };
  const byLine = new Map<number, RowProblem>();
  const whole: string[] = [];
  for (const fieldError of error.fieldErrors) {
    const item = /^\/items\/(\d+)(?:\/([^/]+))?/.exec(fieldError.pointer);
    if (!item) {
      whole.push(aboutTheText(cellDetail(fieldError)));
      continue;
    }
    const index = Number(item[1]);
    const line = lines?.[index] ?? index + 2;
    const row = byLine.get(line) ?? { line, problems: [] };
    row.problems.push({ column: item[2] ?? 'row', detail: cellDetail(fieldError) });
    byLine.set(line, row);
  }
  const rows = [...byLine.values()].sort((a, b) => a.line - b.line);
  return {
    status: refusal.status,
    form: {
      ...form,
      // The batch's words (items, queued): on this form they are rows, and nothing was imported.
      error: refusal.error.replace(
        / items are not valid; nothing was queued\./,
        ' rows are not valid; nothing was imported.',
      ),
      csvError: whole.length > 0 ? whole.join(' ') : undefined,
      rows: rows.slice(0, IMPORT_ROWS_LISTED),
      moreRows: Math.max(0, rows.length - IMPORT_ROWS_LISTED),
    },
  };
}

/** A problem of the whole text as a sentence: `must hold 1 to …` is about the CSV. */
function aboutTheText(detail: string): string {
  const text = detail.startsWith('must ')
    ? `The CSV ${detail}`
    : detail.charAt(0).toUpperCase() + detail.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A problem's detail without the `line N:` the CSV reader puts first: the list shows the line. */
function cellDetail(fieldError: FieldError): string {
  return fieldError.detail.replace(/^line \d+: /, '');
}
