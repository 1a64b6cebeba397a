import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scenario } from './scenario.js';
import { formatFromPath, serializeScenario, toList, writeScenario } from './write.js';

const small = scenario({
  name: 'small',
  services: 12,
  endpointsPerService: 3,
  nodes: 4,
  nodePortFraction: 0.25,
  localTrafficPolicyFraction: 0.25,
});
const dir = await mkdtemp(join(tmpdir(), 'kpng-bench-write-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('toList', () => {
  it('puts nodes, Services and slices in one kind: List', () => {
    const list = toList(small);
    expect(list.kind).toBe('List');
    expect(list.apiVersion).toBe('v1');
    expect(list.items.map((i) => i.kind)).toEqual([
      ...small.nodes.map(() => 'Node'),
      ...small.services.map(() => 'Service'),
      ...small.endpointSlices.map(() => 'EndpointSlice'),
    ]);
  });
});

describe('serializeScenario', () => {
  it.each(['json', 'yaml'] as const)('writes %s that reads back to the same list', (format) => {
    const text = serializeScenario(small, format);
    expect(parse(text)).toEqual(JSON.parse(JSON.stringify(toList(small))));
  });

  it('writes JSON that JSON.parse accepts, one item per line', () => {
    const text = serializeScenario(small, 'json');
    expect(JSON.parse(text)).toEqual(toList(small));
    const lines = text.split('\n');
    const itemLines = lines.slice(1, -2).map((l) => JSON.parse(l.replace(/,$/, '')) as unknown);
    expect(itemLines).toEqual(toList(small).items);
    expect(lines.slice(-2)).toEqual([']}', '']);
  });
});

describe('writeScenario', () => {
  it('writes the file in the format its extension names and returns its size', async () => {
    const path = join(dir, 'small.yaml');
    const bytes = await writeScenario(small, path);
    const text = await readFile(path, 'utf8');
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(text.startsWith('apiVersion: v1\nkind: List\n')).toBe(true);
  });

  it('writes a named scenario', async () => {
    const path = join(dir, 's1k.json');
    await writeScenario('s1k', path, 'json');
    const list = JSON.parse(await readFile(path, 'utf8')) as { items: unknown[] };
    expect(list.items.length).toBe(100 + 1_000 + 1_000);
  });

  it('refuses a path without a known extension', () => {
    expect(formatFromPath('a.YML')).toBe('yaml');
    expect(() => formatFromPath('a.txt')).toThrow(/format/);
  });
});
