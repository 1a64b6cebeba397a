import { afterEach, describe, expect, it } from 'vitest';
import { invalidObjectsTotal } from '../../metrics/objects.js';
import { configureLogging } from '../../util/log.js';
import { reportInvalid } from './report.js';

async function invalidCount(kind: string): Promise<number> {
  return (await invalidObjectsTotal.get()).values.find((v) => v.labels['kind'] === kind)?.value ?? 0;
}

describe('reportInvalid', () => {
  afterEach(() => configureLogging({ write: (line) => process.stderr.write(line + '\n') }));

  it('logs a warning with kind, where and errors, and counts the object', async () => {
    const lines: string[] = [];
    configureLogging({ format: 'json', write: (line) => lines.push(line) });
    const before = await invalidCount('Node');
    reportInvalid('Node', 'nodes.yaml (document 1)', ['metadata.name: is required']);
    expect(await invalidCount('Node')).toBe(before + 1);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'warn',
      kind: 'Node',
      where: 'nodes.yaml (document 1)',
      errors: ['metadata.name: is required'],
    });
  });
});
