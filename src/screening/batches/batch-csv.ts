import type { ScreenedRequest } from '../screened-request.js';
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

/**
 * What was asked, after the outcome's columns: the columns of a CSV batch, written as it reads them
 * (`countries` `;`-separated, `identifiers` `type:value;type:value`; an identifier's issuing country,
 * which a CSV batch cannot give, is in the JSON results), so a row needs no join back to the
 * input. As screened: the query trimmed, the type after its default, country codes upper case.
 */
const REQUEST_CSV_COLUMNS = ['query', 'type', 'date_of_birth', 'countries', 'identifiers'] as const;

function requestCells(request: ScreenedRequest | null): string[] {
  if (request === null) return REQUEST_CSV_COLUMNS.map(() => '');
  return [
    cell(request.query),
    cell(request.type),
    cell(request.date_of_birth),
    cell(request.countries.join(';')),
    cell(request.identifiers.map((id) => `${id.type}:${id.value}`).join(';')),
  ];
}

/** Every result of a batch as CSV, header first, one line per item in index order. */
export function batchResultsCsv(rows: readonly BatchResultView[]): string {
  const lines = [[...BATCH_CSV_COLUMNS, ...REQUEST_CSV_COLUMNS].join(',')];
  for (const row of rows)
    lines.push(
      [...BATCH_CSV_COLUMNS.map((column) => cell(row[column])), ...requestCells(row.request)].join(','),
    );
  return `${lines.join('\r\n')}\r\n`;
}
