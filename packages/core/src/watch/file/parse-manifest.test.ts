import { describe, expect, it } from 'vitest';
import { parseManifest, type ManifestObject } from './parse-manifest.js';

function objects(path: string, text: string): readonly ManifestObject[] {
  const parsed = parseManifest(path, text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.objects;
}

const summary = (found: readonly ManifestObject[]) =>
  found.map((o) => ({
    where: o.where,
    name: (o.object as { metadata?: { name?: string } }).metadata?.name,
    implied: o.implied,
  }));

describe('parseManifest', () => {
  it.each<[string, string, string, { where: string; name?: string; implied?: unknown }[]]>([
    [
      'a single object',
      'c.yaml',
      'kind: Service\nmetadata:\n  name: a\n',
      [{ where: 'c.yaml:1 documents[0]', name: 'a', implied: undefined }],
    ],
    [
      'multi-document YAML, empty documents skipped',
      'c.yaml',
      '---\nkind: Service\nmetadata: {name: a}\n---\n---\n# only a comment\n---\nkind: Node\nmetadata: {name: b}\n',
      [
        { where: 'c.yaml:2 documents[0]', name: 'a', implied: undefined },
        { where: 'c.yaml:8 documents[3]', name: 'b', implied: undefined },
      ],
    ],
    [
      'kind: List',
      'c.yaml',
      'apiVersion: v1\nkind: List\nitems:\n- kind: Service\n  metadata: {name: a}\n- kind: Node\n  metadata: {name: b}\n',
      [
        { where: 'c.yaml:4 documents[0].items[0]', name: 'a', implied: undefined },
        { where: 'c.yaml:6 documents[0].items[1]', name: 'b', implied: undefined },
      ],
    ],
    [
      'a typed list whose items omit kind',
      'c.yaml',
      'apiVersion: discovery.k8s.io/v1\nkind: EndpointSliceList\nitems:\n- metadata: {name: a}\n',
      [
        {
          where: 'c.yaml:4 documents[0].items[0]',
          name: 'a',
          implied: { kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1' },
        },
      ],
    ],
    [
      'JSON object',
      'c.json',
      '{"kind":"Service","metadata":{"name":"a"}}',
      [{ where: 'c.json documents[0]', name: 'a', implied: undefined }],
    ],
    [
      'JSON list',
      'c.json',
      '{"apiVersion":"v1","kind":"ServiceList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}',
      [
        { where: 'c.json documents[0].items[0]', name: 'a', implied: { kind: 'Service', apiVersion: 'v1' } },
        { where: 'c.json documents[0].items[1]', name: 'b', implied: { kind: 'Service', apiVersion: 'v1' } },
      ],
    ],
    [
      'JSON in a .yaml file',
      'c.yaml',
      '{"kind":"Service","metadata":{"name":"a"}}',
      [{ where: 'c.yaml:1 documents[0]', name: 'a', implied: undefined }],
    ],
    ['an empty file', 'c.yaml', '', []],
  ])('reads %s', (_name, path, text, expected) => {
    expect(summary(objects(path, text))).toEqual(expected);
  });

  it('keeps a non-object document for the caller to reject', () => {
    expect(objects('c.yaml', '- 1\n- 2\n')[0]?.object).toEqual([1, 2]);
  });

  it.each<[string, string, string, RegExp]>([
    ['bad indentation', 'c.yaml', 'kind: Service\nmetadata:\n  name: a\n    bad: x\n', /^c\.yaml:3:9: Nested mappings/],
    ['an unclosed flow mapping', 'c.yaml', 'kind: Service\nmetadata: {name: a\n', /^c\.yaml:\d+:\d+: /],
    ['a duplicate key', 'c.yaml', 'kind: Service\nkind: Node\n', /^c\.yaml:2:1: .*unique/i],
    ['an error in a later document', 'c.yaml', 'kind: Node\n---\nkind: [\n', /^c\.yaml:4:1: /],
    ['bad JSON', 'c.json', '{\n  "kind": "Service",\n  "metadata": }\n', /^c\.json:3:\d+: /],
  ])('reports %s with path:line:column', (_name, path, text, pattern) => {
    const parsed = parseManifest(path, text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(pattern);
  });

  it('refuses alias bombs', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ];
    expect(parseManifest('c.yaml', bomb.join('\n')).ok).toBe(false);
  });
});
