import { afterEach, describe, expect, it } from 'vitest';
import { invalidObjectsTotal } from '../../metrics/objects.js';
import { configureLogging, resetLogging } from '../../util/log.js';
import { parseLogLine } from '../../util/log-line.js';
import type { KubeEvent } from '../../events/event-recorder.js';
import { reportInvalid, reportingTo } from './report.js';

async function invalidCount(kind: string): Promise<number> {
  return (await invalidObjectsTotal.get()).values.find((v) => v.labels['kind'] === kind)?.value ?? 0;
}

describe('reportInvalid', () => {
  afterEach(() => resetLogging());

  it('logs a warning with kind, where and errors, and counts the object', async () => {
    const lines: string[] = [];
    configureLogging({ write: (line) => lines.push(line) });
    const before = await invalidCount('Node');
    reportInvalid('Node', 'nodes.yaml (document 1)', ['metadata.name: is required']);
    expect(await invalidCount('Node')).toBe(before + 1);
    expect(lines).toHaveLength(1);
    expect(parseLogLine(lines[0]!)).toMatchObject({
      severity: 'warn',
      rest: expect.stringContaining(
        'kind="Node" where="nodes.yaml (document 1)" errors=["metadata.name: is required"]',
      ),
    });
  });
});

describe('reportingTo', () => {
  it('reports as reportInvalid does and records a Warning Event about the object, its note bounded', async () => {
    const recorded: KubeEvent[] = [];
    configureLogging({ write: () => {} });
    const before = await invalidCount('Service');
    const report = reportingTo({ record: (e) => void recorded.push(e) });
    report('Service', 'shop/front', ['spec.externalIPs[0]: must be a valid IP address, got "x"']);
    report('Node', 'node-a', new Array<string>(100).fill('x'.repeat(100)));
    expect(await invalidCount('Service')).toBe(before + 1);
    expect(recorded[0]).toEqual({
      regarding: { kind: 'Service', name: 'front', namespace: 'shop' },
      type: 'Warning',
      reason: 'InvalidObject',
      action: 'Proxy',
      note: 'ignored by the service proxy: spec.externalIPs[0]: must be a valid IP address, got "x"',
    });
    expect(recorded[1]!.regarding).toEqual({ kind: 'Node', name: 'node-a' });
    expect(recorded[1]!.note).toHaveLength(1024);
  });
});
