import type { BatchResultView } from './batch-view.js';

const COLUMNS = [
  'index',
  'reference',
  'screening_id',
  'risk_score',
  'risk_level',
  'flag_count',
  'status',
  'error',
];

/**
 * A cell as RFC 4180 writes it. A cell a spreadsheet would read as a formula (it starts with =, +,
 * -, @, tab or carriage return: the caller's own reference may) gets a leading apostrophe, so that
 * opening the download cannot run anything.
 */
function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Every result of a batch as CSV, header first, one line per item in index order. */
export function batchResultsCsv(rows: readonly BatchResultView[]): string {
  const lines = [COLUMNS.join(',')];
  for (const r of rows) {
    lines.push(
      [r.index, r.reference, r.screening_id, r.risk_score, r.risk_level, r.flag_count, r.status, r.error]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
