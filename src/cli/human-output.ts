/**
 * The operator commands' answers for people: tables for lists of records, aligned `key  value`
 * lines for one record. `--json` prints the API's JSON instead, for scripts; this rendering is
 * not a stable format to parse.
 */

type Row = Record<string, unknown>;

/** A cell longer than this is cut with an ellipsis: a table should fit a terminal. */
const MAX_CELL = 48;

/** Content hashes are 64 hex digits; the first 12 tell versions apart as `git` does. */
const HASH = /^[0-9a-f]{40,}$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):\d{2}(?:\.\d+)?Z$/;

function isRecord(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTable(value: unknown): value is Row[] {
  return Array.isArray(value) && value.length > 0 && value.every(isRecord);
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') {
    if (HASH.test(value)) return value.slice(0, 12);
    const time = TIMESTAMP.exec(value);
    return time ? `${time[1]} ${time[2]}` : value;
  }
  if (typeof value === 'number') return value.toLocaleString('en-US');
  if (Array.isArray(value) && value.length === 0) return '-';
  if (Array.isArray(value))
    return value.every((v) => !isRecord(v)) ? value.map(scalarText).join(', ') : JSON.stringify(value);
  if (isRecord(value)) return JSON.stringify(value);
  return String(value);
}

function cell(value: unknown): string {
  const text = scalarText(value).replace(/\s+/g, ' ');
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

/** One level of nesting becomes dotted columns (`counts.entities`); deeper values print as JSON. */
function flatten(row: Row): Row {
  const flat: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (isRecord(value)) for (const [inner, v] of Object.entries(value)) flat[`${key}.${inner}`] = v;
    else flat[key] = value;
  }
  return flat;
}

/** `columns`: the fields to show, in this order (a wide record's essentials); else every field. */
export function renderTable(rows: Row[], only?: readonly string[]): string {
  const flat = rows.map(flatten);
  const columns = only ?? [...new Set(flat.flatMap((row) => Object.keys(row)))];
  const cells = flat.map((row) => columns.map((column) => cell(row[column])));
  const headers = columns.map((column) => column.toUpperCase().replaceAll('_', ' '));
  const widths = columns.map((_, i) => Math.max(headers[i]!.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

function renderRecord(record: Row, indent: string): string[] {
  const entries = Object.entries(record);
  const width = Math.max(0, ...entries.filter(([, v]) => !isRecord(v) && !isTable(v)).map(([k]) => k.length));
  const lines: string[] = [];
  for (const [key, value] of entries) {
    if (isRecord(value)) {
      lines.push(`${indent}${key}:`, ...renderRecord(value, `${indent}  `));
    } else if (isTable(value)) {
      lines.push(
        `${indent}${key}:`,
        ...renderTable(value)
          .split('\n')
          .map((l) => `${indent}  ${l}`),
      );
    } else {
      // Whole values here, not cut: a key or a token printed once must be copyable.
      lines.push(
        `${indent}${key.padEnd(width)}  ${value === null || value === undefined ? '-' : scalarText(value)}`,
      );
    }
  }
  return lines;
}

/**
 * A paged answer (`{ data: [...], next_cursor }`) or a plain array prints as a table (of `columns`
 * only, when given); a record as its fields, nested records indented and arrays of records as tables.
 */
export function renderHuman(value: unknown, columns?: readonly string[]): string {
  if (Array.isArray(value))
    return value.length === 0 ? '(none)' : isTable(value) ? renderTable(value, columns) : scalarText(value);
  if (!isRecord(value)) return scalarText(value);
  const { data, ...rest } = value;
  if (Array.isArray(data)) {
    const table = renderHuman(data, columns);
    const footer = renderRecord(
      Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined)),
      '',
    );
    return [table, ...footer].join('\n');
  }
  return renderRecord(value, '').join('\n');
}
