// The listener's JSON body parser: what Fastify's default parser accepts it accepts, and what that
// refuses — empty bodies, bad JSON, prototype poisoning at any depth — it refuses as
// invalid_payload, without scanning the text with regular expressions.

import { describe, expect, it } from 'vitest';

import { ReasonError } from '../../src/http/errors.js';
import { parseJsonBody } from '../../src/http/json-body.js';

function reasonOf(text: string): string | null {
  try {
    parseJsonBody(text);
    return null;
  } catch (error) {
    return error instanceof ReasonError ? error.reason : `not a ReasonError: ${String(error)}`;
  }
}

describe('parseJsonBody', () => {
  it('parses JSON, with or without a byte-order mark', () => {
    expect(parseJsonBody('{"x402Version":2,"a":[1,{"b":"c"}]}')).toEqual({
      x402Version: 2,
      a: [1, { b: 'c' }],
    });
    expect(parseJsonBody('\ufeff{"a":1}')).toEqual({ a: 1 });
    expect(parseJsonBody('null')).toBeNull();
    expect(parseJsonBody('"text"')).toBe('text');
  });

  it('refuses an empty body and bad JSON as invalid_payload', () => {
    for (const text of [
      '',
      '\ufeff',
      '{',
      '{"a":1,}',
      "{'a':1}",
      '{"a":1}{',
      'undefined',
      '\ufeff\ufeff{}',
    ]) {
      expect(reasonOf(text), JSON.stringify(text)).toBe('invalid_payload');
    }
  });

  it('refuses an own __proto__ key at any depth, however it is spelled', () => {
    for (const text of [
      '{"__proto__":{"x":1}}',
      '{"a":{"b":[{"__proto__":null}]}}',
      '[[[[{"__proto__":1}]]]]',
      '{"\\u005f_proto__":{}}',
      '{"__pr\\u006fto__":{}}',
      '{"paymentPayload":{"payload":{"proof":"AAAA"},"accepted":{"extra":{"__proto__":{"isValid":true}}}}}',
    ]) {
      expect(reasonOf(text), text).toBe('invalid_payload');
    }
  });

  it('refuses a constructor object carrying a prototype, and lets other constructor values through', () => {
    expect(reasonOf('{"constructor":{"prototype":{"x":1}}}')).toBe('invalid_payload');
    expect(reasonOf('{"a":[{"c\\u006fnstructor":{"prototype":null}}]}')).toBe('invalid_payload');
    expect(parseJsonBody('{"constructor":"text","b":{"constructor":{"name":"x"}}}')).toEqual({
      constructor: 'text',
      b: { constructor: { name: 'x' } },
    });
  });

  it('accepts keys that merely contain the words, and proto-like text inside strings', () => {
    const text = JSON.stringify({
      proto: 1,
      __proto: 2,
      constructorX: { prototype: 3 },
      s: '"__proto__":{}',
      t: '"constructor":{"prototype":{}}',
    });
    expect(parseJsonBody(text)).toEqual(JSON.parse(text));
  });

  it('walks deeply nested and wide values without exhausting the stack', () => {
    const depth = 50_000;
    const deep = `${'['.repeat(depth)}{"__proto__":1}${']'.repeat(depth)}`;
    expect(reasonOf(deep)).toBe('invalid_payload');
    const wide = JSON.stringify(Array.from({ length: 50_000 }, (_, i) => ({ i })));
    expect((parseJsonBody(wide) as unknown[]).length).toBe(50_000);
  });
});
