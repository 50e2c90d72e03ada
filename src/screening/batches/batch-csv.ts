import { BATCH_CSV_COLUMNS, type BatchResultView } from './batch-view.js';

/**
 * A cell as RFC 4180 writes it. A cell a spreadsheet would read as a formula (it starts with =, +,
 * -, @, tab or carriage return: the caller's own reference may) gets a leading apostrophe, so that
 * opening the download cannot run anything.
 */
function cell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Every result of a batch as CSV, header first, one line per item in index order. */
export function batchResultsCsv(rows: readonly BatchResultView[]): string {
  const lines = [BATCH_CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(BATCH_CSV_COLUMNS.map((column) => cell(row[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
