import { describe, expect, it } from 'vitest';
import { parseWellFormedJson, wellFormedJson } from '../../../src/well-formed-json.js';

describe('JSON read from outside', () => {
  it('replaces every lone surrogate, in nested strings and keys, with U+FFFD and keeps pairs', () => {
    const text = '{"a":["x\\udfffy",{"b\\ud800":"\\ud83d\\ude00 ok \\ud83d"}],"n":1,"t":true,"z":null}';
    expect(parseWellFormedJson(text)).toEqual({
      a: ['x\ufffdy', { 'b\ufffd': '😀 ok \ufffd' }],
      n: 1,
      t: true,
      z: null,
    });
  });

  it('keeps a "__proto__" key an own property when it rebuilds a key', () => {
    const parsed = parseWellFormedJson<Record<string, unknown>>('{"__proto__":{"x\\udc00":1}}');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(Object.keys(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value)).toEqual(['x\ufffd']);
  });

  it('leaves well-formed text as parsed, an escaped backslash before "udfff" included', () => {
    const text = '{"name":"Ab\\\\udfff","other":"Cd"}';
    const parsed = JSON.parse(text) as { name: string };
    expect(wellFormedJson(text, parsed)).toBe(parsed);
    expect(parsed).toEqual({ name: 'Ab\\udfff', other: 'Cd' });
  });
});
