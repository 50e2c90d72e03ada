import fc from 'fast-check';

/** Characters that break naive code: controls, NUL, lone surrogates, invisibles, quotes, astral. */
const NASTY_CHARS = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u200e',
  '\u202e',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '"',
  '\\',
  '/',
  '<',
  '%',
  '\n',
  '\r',
  '\t',
  ' ',
  '.',
  'İ',
  'ß',
  '𝕏',
  'ﷺ',
  '\u0301',
];

/** One UTF-16 code unit of any kind (lone surrogates included), or a whole astral character. */
export const hostileChar: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_CHARS),
  fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((n) => String.fromCodePoint(n)),
  fc.constantFrom('a', 'b', 'Z', '0', '-', '_'),
);

/** Words with a meaning to JavaScript, SQL, templates, spreadsheets or file systems. */
export const LOADED_WORDS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '0x10',
  'true',
  '[]',
  '{}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as text.
  '${7*7}',
  '{{7*7}}',
  "' OR '1'='1' --",
  '"; DROP TABLE accounts; --',
  "=cmd|' /C calc'!A0",
  '+SUM(1,1)',
  '..',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%ff',
  '',
  ' ',
];

/** Strings a client should never send: random Unicode (lone surrogates too), loaded words, long runs. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: hostileChar, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom(...LOADED_WORDS) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(101, 501, 2_049, 70_000), hostileChar).map(([n, c]) => c.repeat(n)),
  },
);

/** Values of every JSON type, for fields that expect one type. */
export const wrongTypeValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e-308, 2 ** 53 + 1, [], {}, [[]], [{}], ''),
);

/** A JSON text of `value`: lone surrogates and control characters come out as \\uXXXX escapes. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

export interface HostileBody {
  what: string;
  contentType: string | undefined;
  payload: string | Buffer;
}

const json = (what: string, payload: string | Buffer): HostileBody => ({
  what,
  contentType: 'application/json',
  payload,
});

/** JSON objects that put `__proto__`, `constructor` or `prototype` as real own keys (raw text, not JSON.stringify). */
function prototypeKeys(fields: string[]): fc.Arbitrary<HostileBody> {
  const poison = fc.constantFrom(
    '{"polluted":"yes","isAdmin":true}',
    '{"prototype":{"polluted":"yes"}}',
    '{"__proto__":{"polluted":"yes"}}',
    '"yes"',
    'null',
  );
  return fc
    .record({
      key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
      poison,
      field: fc.constantFrom(...fields),
      placement: fc.constantFrom('top', 'inside a field', 'inside an array', 'only'),
    })
    .map(({ key, poison: p, field, placement }) => {
      const member = `"${key}":${p}`;
      const text = {
        top: `{"${field}":"Jane Doe",${member}}`,
        'inside a field': `{"${field}":{${member}}}`,
        'inside an array': `{"${field}":[{"query":"Jane Doe",${member}}]}`,
        only: `{${member}}`,
      }[placement];
      return json(`prototype key ${key} ${placement}`, text);
    });
}

/** Nesting far deeper than any schema: arrays, objects, and a `__proto__` at the very bottom. */
export const deepNesting: fc.Arbitrary<HostileBody> = fc
  .record({
    depth: fc.constantFrom(100, 1_000, 10_000),
    shape: fc.constantFrom('arrays', 'objects', 'proto at the bottom', 'inside a field'),
  })
  .map(({ depth, shape }) => json(`${depth} levels of ${shape}`, nested(depth, shape)));

export function nested(depth: number, shape: string): string {
  switch (shape) {
    case 'arrays':
      return '['.repeat(depth) + ']'.repeat(depth);
    case 'objects':
      return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    case 'proto at the bottom':
      return `${'[{"a":'.repeat(depth)}{"__proto__":{"polluted":1}}${'}]'.repeat(depth)}`;
    default:
      return `{"query":${'['.repeat(depth)}"x"${']'.repeat(depth)}}`;
  }
}

/** Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, encoded surrogates, truncations. */
export const invalidUtf8: fc.Arbitrary<Buffer> = fc
  .oneof(
    fc.constantFrom(
      [0xff],
      [0xfe, 0xff],
      [0x80],
      [0xc0, 0xaf],
      [0xc1, 0xbf],
      [0xe0, 0x80, 0xaf],
      [0xf0, 0x80, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xe2, 0x82],
      [0x00],
    ),
    fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 12 }),
  )
  .map((bytes) => Buffer.from(bytes));

/** Bytes of a JSON body whose string value (or whole text) holds invalid UTF-8. */
export function invalidUtf8Body(fields: string[]): fc.Arbitrary<HostileBody> {
  return fc
    .record({ field: fc.constantFrom(...fields), bytes: invalidUtf8, bare: fc.boolean() })
    .map(({ field, bytes, bare }) =>
      json(
        `invalid UTF-8 ${bytes.toString('hex')}${bare ? ' alone' : ` in ${field}`}`,
        bare ? bytes : Buffer.concat([Buffer.from(`{"${field}":"a`), bytes, Buffer.from('b"}')]),
      ),
    );
}

/** Content types the JSON routes do not take, or take only in a spelling worth checking. */
export const CONTENT_TYPES = [
  undefined,
  '',
  'text/plain',
  'text/csv',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="utf-8"; charset=ascii',
  'application/jsonx',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/problem+json',
  'application/json, text/csv',
  '*/*',
  'json',
  '\u00ff/\u00fe',
];

/** Every kind of hostile body for a route whose JSON fields are `fields`. */
export function hostileBody(fields: string[]): fc.Arbitrary<HostileBody> {
  const names = fields.length > 0 ? fields : ['name'];
  const fieldName = fc.oneof(fc.constantFrom(...names), hostileString);
  return fc.oneof(
    fc.constantFrom<HostileBody>(
      { what: 'no body', contentType: undefined, payload: '' },
      { what: 'an empty JSON body', contentType: 'application/json', payload: '' },
      { what: 'an empty CSV body', contentType: 'text/csv', payload: '' },
    ),
    wrongTypeValue.map((v) => json('a value of the wrong type', jsonText(v))),
    fc
      .record({ field: fieldName, value: wrongTypeValue })
      .map(({ field, value }) => json(`${field} of the wrong type`, jsonText({ [field]: value }))),
    fc
      .record({ field: fc.constantFrom(...names), value: hostileString })
      .map(({ field, value }) => json(`hostile text in ${field}`, jsonText({ [field]: value }))),
    fc
      .dictionary(fieldName, fc.oneof(hostileString, wrongTypeValue), { maxKeys: 6 })
      .map((object) => json('hostile object', jsonText(object))),
    prototypeKeys(names),
    invalidUtf8Body(names),
    fc
      .record({ contentType: fc.constantFrom(...CONTENT_TYPES), field: fc.constantFrom(...names) })
      .map(({ contentType, field }) => ({
        what: `content type ${String(contentType)}`,
        contentType,
        payload: jsonText({ [field]: 'Jane Doe' }),
      })),
    fc.string({ unit: hostileChar, maxLength: 30 }).map((text) => json('text that is not JSON', `{${text}`)),
  );
}

/** CSV batches with hostile cells, headers, quoting and line ends. */
export const hostileCsv: fc.Arbitrary<HostileBody> = fc
  .record({
    header: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('query', 'query,type,reference') },
      fc.constantFrom(
        'query',
        'query,type,reference',
        'QUERY , Type',
        'type',
        'query,query',
        '__proto__',
        'query,__proto__',
        'query,constructor',
        '',
        '"query',
      ),
      hostileString,
    ),
    rows: fc.array(
      fc.array(
        fc.oneof(
          hostileString,
          fc.constantFrom('"', '""', '"a,b"', '"unclosed', 'a"b', ',', 'person', 'entity', 'Jane Doe'),
        ),
        { maxLength: 4 },
      ),
      { maxLength: 6 },
    ),
    lineEnd: fc.constantFrom('\n', '\r\n', '\r', '\n\r'),
    bom: fc.boolean(),
    contentType: fc.constantFrom(
      'text/csv',
      'text/csv; charset=utf-8',
      'TEXT/CSV',
      'text/csv; header=present',
    ),
  })
  .map(({ header, rows, lineEnd, bom, contentType }) => ({
    what: 'hostile CSV',
    contentType,
    payload: (bom ? '\ufeff' : '') + [header, ...rows.map((r) => r.join(','))].join(lineEnd),
  }));

/** A path segment no route expects: random Unicode, percent-encoded junk, traversal, great length. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  hostileString.map((s) => encodeSegment(s)),
  invalidUtf8.map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom(
    '%00',
    '%ff',
    '%c0%af',
    '%e0%80%af',
    '%c0%ae%c0%ae',
    '%ed%a0%80',
    '%zz',
    '%',
    '%2',
    '%25',
    '..',
    '.',
    '%2e%2e',
    '..%2f..%2f..%2fetc%2fpasswd',
    '..%5c..%5c',
    '%2e%2e%2f',
    '%252e%252e%252f',
    '..;',
    ';',
    '%3b',
    '%2f',
    '%23',
    '%3f',
    '@',
    ':',
    '*',
    '~',
    '%u0041',
    '\u00e9',
    '\u00ff',
  ),
  fc.constantFrom(100, 2_000, 100_000).map((n) => 'a'.repeat(n)),
);

/**
 * Percent-encodes a string as UTF-8 without throwing on lone surrogates (encodeURIComponent does):
 * they become the replacement character, as a client's UTF-8 encoder would send them.
 */
export function encodeSegment(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${hex(b)}`))
    .join('');
}

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, '0');
}
