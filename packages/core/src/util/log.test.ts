import { afterEach, describe, expect, it } from 'vitest';
import { configureLogging, createLogger, resetLogging } from './log.js';
import { parseLogLine } from './log-line.js';

// 2026-11-28 00:43:01.123456 in the test's local time zone (klog writes local time).
const AT = new Date(2026, 10, 28, 0, 43, 1, 123).getTime() + 0.456;

function capture(opts: Parameters<typeof configureLogging>[0] = {}): string[] {
  const lines: string[] = [];
  configureLogging({ now: () => AT, write: (l) => void lines.push(l), ...opts });
  return lines;
}

afterEach(() => resetLogging());

describe('klog text (the default)', () => {
  it("writes klog's header and structured key/values", () => {
    const lines = capture();
    const line = new Error().stack!.split('\n')[1]!.match(/:(\d+):\d+\)?$/)![1]!;
    createLogger({ component: 'kube-proxy' }).info('synced', { services: 3, full: true, ip: '198.19.0.1' }); // next line
    expect(lines).toEqual([
      `I1128 00:43:01.123456 ${String(process.pid).padStart(7)} log.test.ts:${Number(line) + 1}] "synced" component="kube-proxy" services=3 full=true ip="198.19.0.1"`,
    ]);
  });

  it('marks warnings W and errors E; quotes errors, nil as <nil>, multi-line strings in a < block', () => {
    const lines = capture();
    const log = createLogger();
    log.warn('careful');
    log.error('failed', { err: new Error('boom'), none: null, out: 'a\nb', o: { x: [1] } });
    expect(lines.map((l) => l.slice(0, 1))).toEqual(['W', 'E']);
    expect(lines[1]).toMatch(/\] "failed" err="boom" none=<nil> out=<\n\ta\n\tb\n > o=\{"x":\[1\]\}$/);
  });

  it('escapes quotes and control characters in the message, so one entry stays one line', () => {
    const lines = capture();
    createLogger().info('a "b"\nc');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(parseLogLine(lines[0]!)?.msg).toBe('a "b"\nc');
  });
});

describe('component-base JSON', () => {
  it('writes ts (epoch ms), caller, msg, v, then the key/values; error lines carry no v', () => {
    const lines = capture({ format: 'json' });
    const log = createLogger({ component: 'kube-proxy' });
    log.info('synced', { services: 3 });
    log.error('failed', { err: new Error('boom') });
    const [info, error] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(info).toEqual({
      ts: AT,
      caller: expect.stringMatching(/^util\/log\.test\.ts:\d+$/),
      msg: 'synced',
      v: 0,
      component: 'kube-proxy',
      services: 3,
    });
    expect(Object.keys(info!)).toEqual(['ts', 'caller', 'msg', 'v', 'component', 'services']);
    expect(error).toEqual({ ts: AT, caller: expect.any(String), msg: 'failed', component: 'kube-proxy', err: 'boom' });
  });
});

describe('verbosity', () => {
  it('prints debug(v) lines when -v is at least v, with their v', () => {
    const lines = capture({ verbosity: 2, format: 'json' });
    const log = createLogger();
    log.debug(2, 'two');
    log.debug(3, 'three');
    expect(lines.map((l) => JSON.parse(l) as { msg: string; v: number })).toMatchObject([{ msg: 'two', v: 2 }]);
  });

  it('--vmodule raises the verbosity of the matching module only', () => {
    const lines = capture({ verbosity: 0, vmodule: [{ filePattern: 'log.t*t', verbosity: 4 }] });
    createLogger().debug(4, 'here');
    createLogger().debug(5, 'too verbose');
    expect(lines.map((l) => parseLogLine(l)?.msg)).toEqual(['here']);
  });

  it('--vmodule for another module changes nothing here, and never lowers -v', () => {
    const lines = capture({
      verbosity: 1,
      vmodule: [
        { filePattern: 'sync-loop', verbosity: 9 },
        { filePattern: 'log', verbosity: 0 },
      ],
    });
    createLogger().debug(1, 'at -v');
    createLogger().debug(2, 'above');
    expect(lines.map((l) => parseLogLine(l)?.msg)).toEqual(['at -v']);
  });
});
