import { afterEach, describe, expect, it } from 'vitest';
import { ParseThread } from '../../../src/sources/lists/parse-thread.js';
import { parseVersion } from '../../../src/sources/lists/parsed-version.js';
import { FIXTURE_ENTITY_COUNTS } from '../../support/real-lists.js';
import { mirrorBytes, parserFor } from './mirror.js';

function filesOf(id: string, replace: Record<string, Uint8Array> = {}): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const spec of parserFor(id).files) files.set(spec.name, replace[spec.name] ?? mirrorBytes(spec.name));
  return files;
}

describe('list parses in a worker thread', () => {
  const thread = new ParseThread();
  afterEach(() => thread.stop());

  it('a parse in the worker thread yields exactly what a parse in this thread yields', async () => {
    const files = filesOf('un_sc');
    const threaded = await thread.parse(parserFor('un_sc'), files, {});
    const inline = await parseVersion(parserFor('un_sc'), files, {});
    expect(threaded.entityCount).toBe(FIXTURE_ENTITY_COUNTS.un_sc);
    expect(threaded).toEqual(inline);
    expect(Buffer.isBuffer(threaded.chunks[0]?.records)).toBe(true);
  });

  it('one thread serves parses in a row, with their own settings, and starts again after a stop', async () => {
    const files = filesOf('us_csl');
    const skipping = await thread.parse(parserFor('us_csl'), files, { skipLists: ['SDN'] });
    const all = await thread.parse(parserFor('us_csl'), files, { skipLists: [] });
    expect(all.entityCount).toBe(74);
    expect(skipping.entityCount).toBeLessThan(all.entityCount);
    await thread.stop();
    expect((await thread.parse(parserFor('uk_fcdo'), filesOf('uk_fcdo'), {})).entityCount).toBe(5);
  });

  it("a file that does not parse fails with the parser's message, naming the list and the position", async () => {
    const whole = mirrorBytes('consolidated.xml');
    const truncated = whole.subarray(0, whole.byteLength / 2);
    const failed = thread.parse(parserFor('un_sc'), filesOf('un_sc', { 'consolidated.xml': truncated }), {});
    await expect(failed).rejects.toThrow(
      /^un_sc: consolidated\.xml \(line \d+, column \d+, record \d+\): malformed XML/,
    );
    expect((await thread.parse(parserFor('uk_fcdo'), filesOf('uk_fcdo'), {})).entityCount).toBe(5);
  });

  it('aborting stops the parse with the reason, and the next parse gets a new thread', async () => {
    const stop = new AbortController();
    const parse = thread.parse(parserFor('ofac_sdn'), filesOf('ofac_sdn'), {}, stop.signal);
    stop.abort(new Error('shutting down'));
    await expect(parse).rejects.toThrow('shutting down');
    await expect(thread.parse(parserFor('un_sc'), filesOf('un_sc'), {}, stop.signal)).rejects.toThrow(
      'shutting down',
    );
    expect((await thread.parse(parserFor('uk_fcdo'), filesOf('uk_fcdo'), {})).entityCount).toBe(5);
  });

  it('stopping the thread fails a parse still running, never leaving it pending', async () => {
    const failed = expect(thread.parse(parserFor('ofac_sdn'), filesOf('ofac_sdn'), {})).rejects.toThrow(
      /stopped/,
    );
    await thread.stop();
    await failed;
  });
});
