import { describe, expect, it, test } from 'vitest';
import { ExecError, ExecStartError, processExecer, runChecked, runChunked, startProcess, type Execer } from './exec.js';
import { AnsweringExecer, ScriptedExecer } from './testing.js';

async function* pieces(...parts: (string | Error)[]): AsyncGenerator<string> {
  for (const part of parts) {
    if (part instanceof Error) throw part;
    yield part;
  }
}

// Harmless local commands only (no network tools): the seam's own contract.
describe('processExecer', () => {
  test('passes stdin and returns stdout verbatim', async () => {
    expect(await processExecer.run(['cat'], 'add table ip kpng\n')).toEqual({
      exitCode: 0,
      stdout: 'add table ip kpng\n',
      stderr: '',
    });
  });

  test('resolves with a non-zero exit code and keeps stderr', async () => {
    const result = await processExecer.run(['sh', '-c', 'echo "Error: nope" >&2; exit 3'], '');
    expect(result).toEqual({ exitCode: 3, stdout: '', stderr: 'Error: nope\n' });
  });

  test('rejects with ExecStartError when the program cannot be started', async () => {
    const running = processExecer.run(['/nonexistent/kpng-nft'], '');
    await expect(running).rejects.toThrow(/cannot run \/nonexistent\/kpng-nft/);
    await expect(running).rejects.toBeInstanceOf(ExecStartError);
  });

  test('rejects with the abort reason when aborted', async () => {
    const controller = new AbortController();
    const running = processExecer.run(['sleep', '5'], '', controller.signal);
    controller.abort(new Error('sync cancelled'));
    await expect(running).rejects.toThrow('sync cancelled');
  });

  test('a process that exits before reading its input answers with its exit code (no EPIPE)', async () => {
    const result = await processExecer.run(['sh', '-c', 'exit 4'], 'x'.repeat(1 << 20));
    expect(result.exitCode).toBe(4);
  });

  test('streams pieces in order; a stdin that throws rejects with its error (the process is killed)', async () => {
    expect(await runChunked(processExecer, ['cat'], pieces('a\n', 'b\n', 'c\n'))).toMatchObject({
      stdout: 'a\nb\nc\n',
    });
    const marker = ['sh', '-c', 'read line && echo "saw $line"'];
    await expect(runChunked(processExecer, marker, pieces('first\n', new Error('render bug')))).rejects.toThrow(
      'render bug',
    );
  });
});

describe('runChecked', () => {
  it('returns the result of a zero exit, throws ExecError with exit code and stderr otherwise', async () => {
    const execer = new AnsweringExecer({ ok: {}, bad: { exitCode: 2, stderr: 'Error: no such table\n' } });
    await expect(runChecked(execer, ['ok'])).resolves.toMatchObject({ exitCode: 0 });
    const failed = runChecked(execer, ['bad', 'arg']);
    await expect(failed).rejects.toBeInstanceOf(ExecError);
    await expect(failed).rejects.toMatchObject({
      exitCode: 2,
      stderr: 'Error: no such table\n',
      argv: ['bad', 'arg'],
      message: 'bad arg exited with 2: Error: no such table',
    });
  });
});

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

  it('an execer without runStream runs the whole input at end, and nothing once killed', async () => {
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

describe('the fakes', () => {
  it('ScriptedExecer checks argv and stdin in order and refuses anything else', async () => {
    const execer = new ScriptedExecer([{ argv: ['nft', '-f', '-'], stdin: 'x', result: { stdout: 'ok' } }]);
    await expect(execer.run(['nft', '-f', '-'], 'x')).resolves.toMatchObject({ stdout: 'ok' });
    expect(execer.remaining).toBe(0);
    await expect(execer.run(['nft'], '')).rejects.toThrow(/unexpected call/);
  });

  it('AnsweringExecer answers by prefix, records the calls and refuses an unknown command', async () => {
    const execer = new AnsweringExecer({ 'conntrack -L': (line) => ({ stdout: line }) });
    await expect(execer.run(['conntrack', '-L', '-p', 'udp'], '')).resolves.toMatchObject({
      stdout: 'conntrack -L -p udp',
    });
    await expect(execer.run(['conntrack', '-D'], '')).rejects.toThrow(/unexpected command: conntrack -D/);
    expect(execer.calls).toEqual(['conntrack -L -p udp', 'conntrack -D']);
  });
});
