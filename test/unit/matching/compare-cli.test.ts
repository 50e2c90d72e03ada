import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCompare } from '../../../src/cli/compare.js';

async function run(args: string[], stdin = '') {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks: string[] = [];
  const errors: string[] = [];
  stdout.on('data', (c) => chunks.push(String(c)));
  stderr.on('data', (c) => errors.push(String(c)));
  const code = await runCompare(args, { stdin: Readable.from([stdin]), stdout, stderr });
  return { code, out: chunks.join(''), err: errors.join('') };
}

describe('screening compare', () => {
  it('prints the score, both prepared names and the explanation for people to read', async () => {
    const { code, out } = await run(['--type', 'entity', 'Siemens AG', 'Siemens Aktiengesellschaft']);
    expect(code).toBe(0);
    expect(out).toMatch(/^score\s+1$/m);
    expect(out).toMatch(/^prepared_a\s+SIEMENS <JSC>$/m);
    expect(out).toMatch(/^explanation:$/m);
    expect(out).toMatch(/^ {2}matched_name\s+Siemens Aktiengesellschaft$/m);
  });

  it('prints the same comparison as JSON with --json, for scripts', async () => {
    const { code, out } = await run([
      '--json',
      '--type',
      'entity',
      'Siemens AG',
      'Siemens Aktiengesellschaft',
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ score: 1, prepared_a: 'SIEMENS <JSC>', prepared_b: 'SIEMENS <JSC>' });
    expect(result.explanation.matched_name).toBe('Siemens Aktiengesellschaft');
    expect(result.explanation.unmatched_query_tokens).toEqual(expect.any(Array));
  });

  it('answers every JSON line on stdin with one score line, in order', async () => {
    const input = [
      JSON.stringify({ a: 'Vladimir Putin', b: 'PUTIN, Vladimir', type: 'person' }),
      JSON.stringify({ a: 'Pol Pot', b: 'Paul Murphy' }),
      'not json',
      JSON.stringify({ a: 'ALPHA 1', b: 'ALPHA 1', type: 'entity' }),
    ].join('\n');
    const { code, out } = await run(['--jsonl'], input);
    expect(code).toBe(0);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual({ score: 1 });
    expect(lines[1].score).toBeLessThan(0.5);
    expect(lines[2]).toHaveProperty('error');
    expect(lines[3]).toEqual({ score: 1 });
  });

  it('rejects a wrong number of names or an unknown type with exit code 2', async () => {
    expect((await run(['only one'])).code).toBe(2);
    const bad = await run(['--type', 'ship', 'A', 'B']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('invalid --type');
  });
});
