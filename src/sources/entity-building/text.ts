/** Null markers the lists use for an empty field: OFAC's '-0-', the UK's '-' placeholders. */
const NULL_VALUES = new Set(['', '-0-', '-', 'n/a', 'N/A']);

const MESSY_WHITESPACE = /\s\s|[^\S ]/;

/** Trims, collapses inner whitespace, and turns the lists' null markers into undefined. */
export function clean(value: string | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  let text = value.trim();
  // Most fields are already clean; skipping the replace for them halves the cost on big lists.
  if (MESSY_WHITESPACE.test(text)) text = text.replace(/\s+/g, ' ');
  return NULL_VALUES.has(text) ? undefined : text;
}

/** Splits a multi-value field (`a; b; c`), cleaning each part and dropping empty ones. */
export function splitValues(value: string | undefined, separator: string | RegExp = ';'): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const part of value.split(separator)) {
    const text = clean(part);
    if (text) out.push(text);
  }
  return out;
}

export function pushUnique<T>(target: T[], value: T | undefined): void {
  if (value !== undefined && !target.includes(value)) target.push(value);
}

/** Splits OFSI's enumerations, "(1) Malaysia (2) Indonesia" or "(1) 223611. (2) C00146605". */
export function splitEnumerated(value: string | undefined): string[] {
  if (!value) return [];
  if (!/^\s*\(1\)/.test(value)) {
    const single = clean(value);
    return single ? [single] : [];
  }
  return splitValues(value, /\(\d+\)/)
    .map((part) => part.replace(/[.;,]$/, '').trim())
    .filter(Boolean);
}
