/**
 * JSON can spell a lone surrogate (`"\udfff"`), which no UTF-8 text can hold: PostgreSQL refuses it
 * inside jsonb, and an encoder writes U+FFFD in its place. Text read as JSON from outside (request bodies, provider answers) is therefore made
 * well-formed once, where it enters, with each lone surrogate replaced by U+FFFD as any UTF-8
 * encoder does: what is stored, returned and signed is then the same text everywhere.
 */

/** A `\uD800`-`\uDFFF` escape: raw UTF-8 bytes always decode well-formed, so only escapes need a look. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** `parsed` (the result of parsing `text`) with every lone surrogate in its strings and keys replaced. */
export function wellFormedJson<T>(text: string, parsed: T): T {
  return mayHoldLoneSurrogates(text) ? wellFormedValue(parsed) : parsed;
}

/** Whether parsing JSON `text` may give lone surrogates: whether it spells one as an escape. */
export function mayHoldLoneSurrogates(text: string): boolean {
  return SURROGATE_ESCAPE.test(text);
}

/** Parses JSON text into well-formed strings. */
export function parseWellFormedJson<T = unknown>(text: string): T {
  return wellFormedJson(text, JSON.parse(text) as T);
}

/** `value` (parsed JSON) with every lone surrogate in its strings and keys replaced, in place. */
export function wellFormedValue<T>(value: T): T {
  return replaceLoneSurrogates(value) as T;
}

function replaceLoneSurrogates(value: unknown): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = replaceLoneSurrogates(value[i]);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const fixed = replaceLoneSurrogates(record[key]);
    if (key.isWellFormed()) {
      record[key] = fixed;
    } else {
      delete record[key];
      // defineProperty, not assignment: a parsed "__proto__" key stays an own data property.
      Object.defineProperty(record, key.toWellFormed(), {
        value: fixed,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }
  return record;
}
