import { gunzipSync, gzipSync } from 'node:zlib';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ListParseError } from '../../../src/sources/lists/parsers/index.js';
import type { ListInput, ListParseOptions } from '../../../src/sources/lists/parsers/types.js';
import { mirrorBytes, parserFor } from './mirror.js';

function parseWith(
  id: string,
  replace: Record<string, ListInput>,
  options?: ListParseOptions,
  format?: string,
) {
  const parser = parserFor(id, format);
  const files = new Map<string, ListInput>();
  for (const spec of parser.files) files.set(spec.name, replace[spec.name] ?? mirrorBytes(spec.name));
  return parser.parse(files, options);
}

async function parseError(promise: Promise<unknown>): Promise<ListParseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ListParseError);
  return error as ListParseError;
}

const HTML_LOGIN = `<!DOCTYPE html>
<html lang="en"><head><title>EU Login</title></head>
<body><form action="/cas/login" method="post"><input name="username"></form></body></html>`;

describe('list files that are broken or not lists at all', () => {
  it('a truncated UN XML is rejected naming the list, the file and the line', async () => {
    const whole = mirrorBytes('consolidated.xml');
    const half = whole.subarray(0, whole.byteLength / 2);
    const error = await parseError(parseWith('un_sc', { 'consolidated.xml': half }));
    expect(error.list).toBe('un_sc');
    expect(error.file).toBe('consolidated.xml');
    // Where the file stops, not where it starts.
    expect(error.position.line).toBeGreaterThanOrEqual(half.toString('utf8').split('\n').length);
    expect(error.message).toMatch(
      /^un_sc: consolidated\.xml \(line \d+, column \d+, record \d+\): malformed XML/,
    );
  });

  it('an SDN row with a missing column is rejected with its line number', async () => {
    const lines = mirrorBytes('SDN.CSV').toString('utf8').split('\r\n');
    lines[4] = lines[4]!.replace(/,-0- $/, '');
    const error = await parseError(parseWith('ofac_sdn', { 'SDN.CSV': Buffer.from(lines.join('\r\n')) }));
    expect(error).toMatchObject({ list: 'ofac_sdn', file: 'SDN.CSV', position: { line: 5, record: 5 } });
    expect(error.reason).toBe('expected 12 columns, found 11');
  });

  it('an OFSI file whose header lost a column is rejected before any row is read', async () => {
    const text = gunzipSync(mirrorBytes('ConList.csv')).toString('utf8').replace(',Regime,', ',');
    const error = await parseError(parseWith('uk_ofsi', { 'ConList.csv': Buffer.from(text) }));
    expect(error).toMatchObject({ list: 'uk_ofsi', position: { line: 2 } });
    expect(error.reason).toMatch(/expected 36 columns in the header, found 35/);
  });

  it('an empty EU file is rejected, not read as an empty list', async () => {
    const error = await parseError(parseWith('eu_fsf', { 'xmlFullSanctionsList_1_1.xml': Buffer.alloc(0) }));
    expect(error.message).toBe('eu_fsf: xmlFullSanctionsList_1_1.xml (byte 0): file is empty');
  });

  it('a well-formed list file with no entries is rejected', async () => {
    const empty = Buffer.from(
      '<?xml version="1.0"?>\n<CONSOLIDATED_LIST dateGenerated="2026-02-27"><INDIVIDUALS/></CONSOLIDATED_LIST>',
    );
    const error = await parseError(parseWith('un_sc', { 'consolidated.xml': empty }));
    expect(error.reason).toBe('file holds no list entries');
  });

  it('an HTML login page served instead of the EU XML is rejected naming the list', async () => {
    const error = await parseError(
      parseWith('eu_fsf', { 'xmlFullSanctionsList_1_1.xml': Buffer.from(HTML_LOGIN) }),
    );
    expect(error.list).toBe('eu_fsf');
    expect(error.position.line).toBe(1);
    expect(error.reason).toMatch(/HTML page instead of the list file/);
  });

  it('an HTML error page served instead of a CSV list is rejected too', async () => {
    const error = await parseError(parseWith('us_csl', { 'consolidated.csv': Buffer.from(HTML_LOGIN) }));
    expect(error.reason).toMatch(/HTML page/);
  });

  it('another list served under the EU name is rejected by its document element', async () => {
    const error = await parseError(
      parseWith('eu_fsf', { 'xmlFullSanctionsList_1_1.xml': mirrorBytes('consolidated.xml') }),
    );
    expect(error.reason).toBe('unexpected document element <CONSOLIDATED_LIST>, expected <export>');
    expect(error.position.line).toBe(2);
  });

  it('a UTF-16 copy of the UK XML is rejected as a wrong encoding', async () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(mirrorBytes('UK-Sanctions-List.xml').toString('utf8'), 'utf16le'),
    ]);
    const error = await parseError(parseWith('uk_fcdo', { 'UK-Sanctions-List.xml': utf16 }));
    expect(error.reason).toMatch(/UTF-16 or binary, expected UTF-8/);
  });

  it('a Latin-1 byte in a CSV is rejected with its byte offset', async () => {
    const csv = mirrorBytes('CONS_PRIM.CSV');
    const at = csv.indexOf('HANIYA');
    const latin1 = Buffer.concat([csv.subarray(0, at), Buffer.from([0xc9]), csv.subarray(at + 1)]);
    const error = await parseError(
      parseWith('ofac_cons', { 'CONS_PRIM.CSV': latin1 }, undefined, 'ofac_legacy_csv'),
    );
    expect(error).toMatchObject({ list: 'ofac_cons', file: 'CONS_PRIM.CSV', position: { byte: at } });
    expect(error.reason).toMatch(/not valid UTF-8/);
  });

  it('a zip bomb declaring its size is refused before inflating', async () => {
    const bomb = zipSync({ 'CONS_ENHANCED.XML': new Uint8Array(64 * 1024 * 1024) });
    expect(bomb.byteLength).toBeLessThan(200_000);
    const limits = { maxDecompressedBytes: 8 * 1024 * 1024 };
    const error = await parseError(
      parseWith('ofac_cons', { 'CONS_ENHANCED.ZIP': bomb }, { limits }, 'ofac_enhanced_xml'),
    );
    expect(error.reason).toMatch(/declares 67108864 bytes, over the 8388608-byte limit/);
  });

  it('a zip bomb hiding its size is stopped once it inflates past the limit', async () => {
    const chunks: Uint8Array[] = [];
    const zip = new Zip((err, chunk) => {
      if (err) throw err;
      chunks.push(chunk);
    });
    const entry = new ZipDeflate('CONS_ENHANCED.XML', { level: 9 });
    zip.add(entry);
    const zeros = new Uint8Array(1024 * 1024);
    for (let i = 0; i < 32; i++) entry.push(zeros, i === 31);
    zip.end();
    const limits = { maxDecompressedBytes: 4 * 1024 * 1024 };
    const error = await parseError(
      parseWith('ofac_cons', { 'CONS_ENHANCED.ZIP': Buffer.concat(chunks) }, { limits }, 'ofac_enhanced_xml'),
    );
    expect(error.reason).toMatch(/expands beyond the 4194304-byte limit/);
  });

  it('a gzip bomb is stopped once it inflates past the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(24 * 1024 * 1024, 'a'));
    const error = await parseError(
      parseWith('uk_ofsi', { 'ConList.csv': bomb }, { limits: { maxDecompressedBytes: 4 * 1024 * 1024 } }),
    );
    expect(error.reason).toMatch(/gzip content expands beyond the 4194304-byte limit/);
  });

  it('a truncated gzip download is rejected, not parsed as a shorter list', async () => {
    const gz = mirrorBytes('consolidated.csv');
    const error = await parseError(
      parseWith('us_csl', { 'consolidated.csv': gz.subarray(0, gz.byteLength - 5000) }),
    );
    expect(error.reason).toMatch(/corrupt or truncated gzip data/);
  });

  it('an input over the size cap is refused', async () => {
    const error = await parseError(parseWith('un_sc', {}, { limits: { maxInputBytes: 100_000 } }));
    expect(error.reason).toBe('file is larger than the 100000-byte limit');
  });

  it('random bytes in place of the OFAC zip are rejected without a crash', async () => {
    const noise = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    const error = await parseError(
      parseWith('ofac_cons', { 'CONS_ENHANCED.ZIP': noise }, undefined, 'ofac_enhanced_xml'),
    );
    expect(error.reason).toBe('file is not a zip archive');
  });

  it('a missing required file is named', async () => {
    const parser = parserFor('ofac_sdn');
    const error = await parseError(parser.parse(new Map([['SDN.CSV', mirrorBytes('SDN.CSV')]])));
    expect(error.message).toBe('ofac_sdn: ALT.CSV: required file is missing');
  });

  it('an aborted refresh stops the parse', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(parseWith('un_sc', {}, { signal: controller.signal })).rejects.toThrow(/abort/i);
  });
});
