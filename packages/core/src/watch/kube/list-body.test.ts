import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListBody } from './list-body.js';

const LIST = {
  kind: 'EndpointSliceList',
  apiVersion: 'discovery.k8s.io/v1',
  metadata: { resourceVersion: '42', note: 'an "items": [ in a string', continue: '' },
  items: [
    {
      metadata: {
        name: 'a',
        annotations: { x: 'quote \\" brace } bracket ] ünïcödé \u2028', y: 'ends in a backslash \\', z: '\\\\"}' },
      },
      items: [{ nested: ['}', '{'] }],
    },
    { metadata: { name: 'b' }, endpoints: [] },
    { metadata: { name: 'c' }, endpoints: [{ addresses: ['198.18.0.2'], conditions: { ready: true } }] },
  ],
  trailer: { items: ['not', 'these'] },
};

function parse(chunks: readonly string[]): { envelope: Record<string, unknown>; items: unknown[] } {
  const body = new ListBody();
  const items: unknown[] = [];
  for (const chunk of chunks) body.push(chunk, (item) => items.push(item));
  return { envelope: body.end(), items };
}

describe('ListBody', () => {
  const text = JSON.stringify(LIST, null, 1);
  const { items: expectedItems, ...envelope } = LIST;

  it('yields every item and the envelope, however the body is cut into chunks', () => {
    for (let cut = 0; cut <= text.length; cut++) {
      expect(parse([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual({
        envelope: { ...envelope, items: [] },
        items: expectedItems,
      });
    }
    expect(parse([...text])).toEqual({ envelope: { ...envelope, items: [] }, items: expectedItems });
  });

  it('yields each item as soon as its last byte arrives', () => {
    const body = new ListBody();
    const seen: unknown[] = [];
    const endOfFirst = text.indexOf('"b"');
    body.push(text.slice(0, endOfFirst), (item) => seen.push(item));
    expect(seen).toEqual([expectedItems[0]]);
    expect(body.items).toBe(1);
  });

  it.each([
    ['cut off inside an item', text.slice(0, text.indexOf('"c"'))],
    ['cut off inside a string', text.slice(0, text.indexOf('ünï'))],
    ['not an object', '[1, 2]'],
  ])('throws on a body %s', (_name, body) => {
    expect(() => parse([body])).toThrow(SyntaxError);
  });

  it('throws on a malformed item, as JSON.parse of the whole body would', () => {
    expect(() => parse(['{"items":[{"a":1,}]}'])).toThrow(SyntaxError);
  });

  it('reads a list with no items', () => {
    expect(parse(['{"kind":"NodeList","items":[]}'])).toEqual({ envelope: { kind: 'NodeList', items: [] }, items: [] });
    expect(parse(['{"kind":"NodeList","metadata":{}}'])).toEqual({
      envelope: { kind: 'NodeList', metadata: {} },
      items: [],
    });
  });

  it('agrees with JSON.parse of the whole body for any items (strings of quotes, backslashes, brackets), cut anywhere', () => {
    const text = fc.stringMatching(/^[a-z"\\{}[\],:\u00e9 ]{0,12}$/);
    const item = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 })), { maxKeys: 4 });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), text, fc.array(fc.nat(), { maxLength: 5 }), (items, note, cuts) => {
        const body = JSON.stringify({ kind: 'List', metadata: { note }, items });
        const at = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((from, k) => body.slice(from, [...at, body.length][k]));
        expect(parse(chunks)).toEqual({ envelope: { kind: 'List', metadata: { note }, items: [] }, items });
      }),
      { numRuns: 500 },
    );
  });
});
