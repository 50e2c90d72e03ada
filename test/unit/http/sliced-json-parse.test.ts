import { describe, expect, it } from 'vitest';
import { parseInSlices, SLICED_PARSE_FROM_CHARS } from '../../../src/http/sliced-json-parse.js';

/** Pads a body past the size from which it is parsed in slices. */
function large(body: Record<string, unknown>, items: unknown[]): string {
  const text = JSON.stringify({ ...body, items });
  return text.length >= SLICED_PARSE_FROM_CHARS ? text : large(body, [...items, ...items]);
}

const tricky = [
  { query: 'Quote " and } and ] and \\\\', type: 'person' },
  { query: 'Ünïcödé 名前 \\u00e9 \u00e9', countries: ['IQ', 'SY'], nested: { a: [1, { b: '}' }] } },
  'a bare string',
  12.5e3,
  null,
  true,
  [],
  {},
];

describe('a long list body parsed a slice at a time', () => {
  it('gives what JSON.parse gives, whatever the items hold', async () => {
    const text = large({ options: { threshold: 0.7 }, reference: 'x' }, tricky);
    const parsed = await parseInSlices(text, JSON.parse, 1_000_000);
    expect(parsed.value).toEqual(JSON.parse(text));
    expect(parsed.itemCount).toBe(JSON.parse(text).items.length);
  });

  it('keeps whitespace, member order and the last of two equal keys as JSON.parse does', async () => {
    const items = JSON.stringify(
      Array.from({ length: 20_000 }, (_, k) => ({ query: `name ${k}` })),
      null,
      2,
    );
    const text = `\n {\n  "items" : ${items} ,\n "options": {"a": 1}, "options": {"a": 2}\n}\n `;
    expect(text.length).toBeGreaterThan(SLICED_PARSE_FROM_CHARS);
    expect((await parseInSlices(text, JSON.parse, 1_000_000)).value).toEqual(JSON.parse(text));
  });

  it('gives the event loop turns while it parses', async () => {
    const text = large(
      {},
      Array.from({ length: 50_000 }, (_, k) => ({ query: `party number ${k}`, type: 'person' })),
    );
    let turns = 0;
    let stop = false;
    const tick = () => {
      turns++;
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    const slow = (piece: string) => {
      const until = performance.now() + 0.01;
      while (performance.now() < until);
      return JSON.parse(piece);
    };
    await parseInSlices(text, slow, 1_000_000);
    stop = true;
    expect(turns).toBeGreaterThan(1);
  });

  it('parses no more than one item past the limit, and counts them all', async () => {
    const items = Array.from({ length: 30_000 }, (_, k) => k);
    const text = large({}, items);
    let calls = 0;
    const counted = (piece: string) => {
      calls++;
      return JSON.parse(piece);
    };
    const parsed = await parseInSlices(text, counted, 100);
    expect(parsed.itemCount).toBe(JSON.parse(text).items.length);
    expect((parsed.value as { items: unknown[] }).items).toHaveLength(101);
    expect(calls).toBe(101);
  });

  it.each([
    ['cut short', (text: string) => text.slice(0, -10)],
    ['a broken item', (text: string) => text.replace('{"query":"party 7"}', '{"query":"party 7",}')],
    ['trailing garbage', (text: string) => `${text} x`],
    ['an array at the top', (text: string) => `[${text}]`],
    ['a prototype key', (text: string) => text.replace('{"items"', '{"__proto__": {"x": 1}, "items"')],
  ])('leaves a body %s to the whole parse, which refuses it', async (_, damage) => {
    const text = damage(
      large(
        {},
        Array.from({ length: 20_000 }, (_, k) => ({ query: `party ${k}` })),
      ),
    );
    const strict = (piece: string) => {
      if (piece.includes('__proto__')) throw new SyntaxError('forbidden prototype property');
      return JSON.parse(piece);
    };
    let expected: unknown;
    try {
      expected = { value: strict(text) };
    } catch (error) {
      expected = error;
    }
    const outcome = await parseInSlices(text, strict, 1_000_000).catch((error) => error);
    if (expected instanceof Error) expect(outcome).toEqual(expected);
    else expect(outcome.value).toEqual((expected as { value: unknown }).value);
  });

  it('parses a small body whole', async () => {
    expect(await parseInSlices('{"items": [1, 2]}', JSON.parse, 1)).toEqual({
      value: { items: [1, 2] },
      itemCount: undefined,
    });
  });
});
