import { describe, expect, it, test } from 'vitest';
import {
  ExecError,
  ExecStartError,
  ExecTimeoutError,
  eachLine,
  processExecer,
  processExecerWith,
  runChecked,
  runSync,
  runSyncChecked,
  runChunked,
  spawnChild,
  startProcess,
  withTimeout,
  type Execer,
} from './exec.js';
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

  test('a large input in many pieces (~3 MB, written in 1 MB chunks) arrives whole and in order', async () => {
    const line = (i: number): string => `-A KUBE-SVC-${String(i).padStart(16, '0')} -j KUBE-SEP-${i}\n`;
    async function* many(): AsyncGenerator<string> {
      for (let i = 0; i < 60_000; i++) yield line(i);
    }
    const result = await runChunked(processExecer, ['wc', '-c'], many());
    let bytes = 0;
    for (let i = 0; i < 60_000; i++) bytes += line(i).length;
    expect(Number(result.stdout.trim())).toBe(bytes);
    expect((await runChunked(processExecer, ['tail', '-n', '1'], many())).stdout).toBe(line(59_999));
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

describe('withTimeout', () => {
  /** Runs until aborted, then rejects with the abort's reason (as processExecer does). */
  const hanging: Execer = {
    run: (_argv, _stdin, signal) =>
      new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error))),
  };
  const ok = { exitCode: 0, stdout: 'done', stderr: '' };

  it('kills a real process still running after the timeout: ExecTimeoutError with argv and ms', async () => {
    // `sleep 60` outlives the test's own timeout: only the kill lets this call settle.
    const error: unknown = await withTimeout(processExecer, 200)
      .run(['sleep', '60'], '')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecTimeoutError);
    expect(error).toMatchObject({
      argv: ['sleep', '60'],
      timeoutMs: 200,
      message: 'sleep 60 did not finish within 200 ms: killed',
    });
  });

  it("a caller's own abort keeps its reason; a command that finishes in time is untouched", async () => {
    const mine = new AbortController();
    const run = withTimeout(hanging, 60_000).run(['x'], '', mine.signal);
    mine.abort(new Error('mine'));
    await expect(run).rejects.toThrow(/^mine$/);
    await expect(withTimeout({ run: () => Promise.resolve(ok) }, 10).run(['x'], '')).resolves.toEqual(ok);
  });

  it("a streamed command's clock starts once its input is complete", async () => {
    let taken = '';
    const streaming: Execer = {
      run: () => Promise.reject(new Error('unused')),
      async runStream(_argv, stdin) {
        for await (const piece of stdin) taken += piece;
        return ok;
      },
    };
    // Rendering the input takes 100 ms, five times the timeout: not the command's time.
    async function* slow(): AsyncGenerator<string> {
      yield 'a';
      await new Promise((resolve) => setTimeout(resolve, 100));
      yield 'b';
    }
    await expect(runChunked(withTimeout(streaming, 20), ['x'], slow())).resolves.toEqual(ok);
    expect(taken).toBe('ab');
    // Once the input is complete, the same command is killed as `run` is.
    const hangingStream: Execer = {
      ...hanging,
      async runStream(argv, stdin, signal) {
        for await (const piece of stdin) taken += piece;
        return hanging.run(argv, '', signal);
      },
    };
    await expect(runChunked(withTimeout(hangingStream, 20), ['x'], pieces('a'))).rejects.toBeInstanceOf(
      ExecTimeoutError,
    );
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

describe('eachLine', () => {
  test('passes whole lines, across chunks and a multi-byte character split between them', () => {
    const lines: string[] = [];
    const push = eachLine((line) => lines.push(line));
    const text = Buffer.from('one\ntw\u00e9\n\nthree');
    push(text.subarray(0, 6));
    push(text.subarray(6, 7));
    push(text.subarray(7));
    expect(lines).toEqual(['one', 'tw\u00e9', '']);
  });
});

describe('spawnChild', () => {
  test('takes input as it is written and passes output as it comes', async () => {
    const out: string[] = [];
    const child = spawnChild(['cat'], { input: true, onStdout: eachLine((line) => out.push(line)) });
    expect(child.pid).toBeGreaterThan(0);
    child.write('first\n');
    await expect.poll(() => out).toEqual(['first']);
    child.write(Buffer.from([0x73, 0x65, 0x63, 0x6f, 0x6e, 0x64, 0x0a]));
    child.endInput();
    expect(await child.exited).toEqual({ exitCode: 0, signal: null });
    expect(out).toEqual(['first', 'second']);
  });

  test('keeps stderr apart and reports the exit code', async () => {
    const err: Buffer[] = [];
    const child = spawnChild(['sh', '-c', 'echo oops >&2; exit 4'], { onStderr: (b) => err.push(b) });
    expect(await child.exited).toEqual({ exitCode: 4, signal: null });
    expect(Buffer.concat(err).toString()).toBe('oops\n');
  });

  test('env adds to the environment it inherits', async () => {
    const out: Buffer[] = [];
    const child = spawnChild(['sh', '-c', 'echo "$KPNG_KIT_TEST $HOME"'], {
      env: { KPNG_KIT_TEST: 'added' },
      onStdout: (b) => out.push(b),
    });
    await child.exited;
    expect(Buffer.concat(out).toString()).toBe(`added ${process.env['HOME'] ?? ''}\n`);
  });

  test('kill ends it with the signal; a second kill after its exit does nothing', async () => {
    const child = spawnChild(['sleep', '60']);
    child.kill();
    expect(await child.exited).toEqual({ exitCode: null, signal: 'SIGTERM' });
    child.kill('SIGKILL');
  });

  test('a program that cannot start resolves with ExecStartError, never throws', async () => {
    const child = spawnChild(['/nonexistent/kpng-tool']);
    const exit = await child.exited;
    expect(exit.error).toBeInstanceOf(ExecStartError);
    expect(exit.error?.message).toMatch(/cannot run \/nonexistent\/kpng-tool/);
    expect(() => spawnChild([])).toThrow(/empty argv/);
  });

  test('writing to a child started without input is an error', async () => {
    const child = spawnChild(['true']);
    expect(() => child.write('x')).toThrow(/without input/);
    await child.exited;
  });
});

describe('processExecerWith', () => {
  test('runs in its directory with its variables added to the environment', async () => {
    const execer = processExecerWith({ cwd: '/', env: { KPNG_KIT_TEST: 'added' } });
    const result = await execer.run(['sh', '-c', 'echo "$(pwd) $KPNG_KIT_TEST $HOME"'], '');
    expect(result.stdout).toBe(`/ added ${process.env['HOME'] ?? ''}\n`);
    expect((await runChunked(execer, ['sh', '-c', 'pwd; cat'], pieces('a', 'b'))).stdout).toBe('/\nab');
  });

  test('inheritEnv false: its environment is env alone', async () => {
    const execer = processExecerWith({ env: { KPNG_KIT_TEST: 'only' }, inheritEnv: false });
    const result = await execer.run(['/bin/sh', '-c', 'echo "$KPNG_KIT_TEST ${HOME:-none}"'], '');
    expect(result.stdout).toBe('only none\n');
  });
});

describe('runSync', () => {
  test('passes input, returns output and a non-zero exit code, in its directory', () => {
    expect(runSync(['cat'], { input: 'piece\n' })).toEqual({ exitCode: 0, stdout: 'piece\n', stderr: '' });
    expect(runSync(['sh', '-c', 'pwd; echo no >&2; exit 5'], { cwd: '/' })).toEqual({
      exitCode: 5,
      stdout: '/\n',
      stderr: 'no\n',
    });
  });

  test('throws ExecStartError when it cannot start or outgrows its buffer, ExecTimeoutError past its time', () => {
    expect(() => runSync(['/nonexistent/kpng-tool'])).toThrow(ExecStartError);
    expect(() => runSync(['sh', '-c', 'head -c 4096 /dev/zero'], { maxBuffer: 1024 })).toThrow(ExecStartError);
    expect(() => runSync(['sh', '-c', 'kill -KILL $$'])).toThrow(/killed by SIGKILL/);
    // The timeout is the behaviour under test: 50 ms against a 60 s sleep cannot be reached by accident.
    const late = (): unknown => runSync(['sleep', '60'], { timeoutMs: 50 });
    expect(late).toThrow(ExecTimeoutError);
    expect(late).toThrow(/did not finish within 50 ms/);
    expect(() => runSync([])).toThrow(/empty argv/);
  });

  test('runSyncChecked returns a zero exit, throws ExecError with exit code and stderr otherwise', () => {
    expect(runSyncChecked(['echo', 'ok']).stdout).toBe('ok\n');
    const failing = (): unknown => runSyncChecked(['sh', '-c', 'echo bad >&2; exit 2']);
    expect(failing).toThrow(ExecError);
    expect(failing).toThrow(/exited with 2: bad/);
  });

  test("output 'inherit' leaves its output to this process's stdout and stderr", () => {
    expect(runSync(['true'], { output: 'inherit' })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });
});
