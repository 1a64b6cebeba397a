import { describe, expect, it } from 'vitest';
import { processExecer, startProcess, type Execer } from './exec.js';

describe('processes started before their input', () => {
  it('a started process gets its pieces in order and answers as run does', async () => {
    const started = startProcess(processExecer, ['cat']);
    for (const piece of ['*filter\n', 'a\n', 'COMMIT\n']) started.write(piece);
    await expect(started.end()).resolves.toEqual({ exitCode: 0, stdout: '*filter\na\nCOMMIT\n', stderr: '' });
  });

  it('a killed process is gone and never saw what it was not sent', async () => {
    const started = startProcess(processExecer, ['sh', '-c', 'cat > /dev/null; echo done']);
    started.write('held until end\n');
    started.kill();
    await expect(started.end()).rejects.toThrow(/killed/);
  });

  it('an execer without start runs the whole input at end, and nothing once killed', async () => {
    const runs: string[] = [];
    const execer: Execer = {
      run: (_argv, stdin) => {
        runs.push(stdin);
        return Promise.resolve({ exitCode: 0, stdout: '', stderr: '' });
      },
    };
    const first = startProcess(execer, ['x']);
    first.write('a');
    first.write('b');
    expect(runs).toEqual([]);
    await first.end();
    expect(runs).toEqual(['ab']);
    const second = startProcess(execer, ['x']);
    second.write('c');
    second.kill();
    await expect(second.end()).rejects.toThrow(/killed/);
    expect(runs).toEqual(['ab']);
  });
});
