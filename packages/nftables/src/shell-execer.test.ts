import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { processExecer } from '@kpng/kit';
import { ShellExecer } from './shell-execer.js';

// Harmless local commands only (no network tools): the seam's contract, as processExecer's, plus
// what the long-lived shell adds.
describe('ShellExecer', () => {
  let dir: string;
  let ppid: string;
  const shells: ShellExecer[] = [];
  const make = (...args: ConstructorParameters<typeof ShellExecer>): ShellExecer => {
    const shell = new ShellExecer(...args);
    shells.push(shell);
    return shell;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kpng-shell-execer-test-'));
    ppid = join(dir, 'ppid.sh');
    await writeFile(ppid, 'echo $PPID\n');
    await chmod(ppid, 0o755);
  });
  afterEach(async () => {
    for (const shell of shells.splice(0)) await shell.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('passes stdin and returns stdout verbatim', async () => {
    expect(await make().run(['cat'], 'add table ip kpng\n')).toEqual({
      exitCode: 0,
      stdout: 'add table ip kpng\n',
      stderr: '',
    });
  });

  test('resolves with a non-zero exit code and keeps stderr', async () => {
    await writeFile(join(dir, 'fail.sh'), 'echo "Error: nope" >&2; exit 3\n');
    expect(await make().run(['sh', join(dir, 'fail.sh')], '')).toEqual({
      exitCode: 3,
      stdout: '',
      stderr: 'Error: nope\n',
    });
  });

  test('rejects when the program cannot be started', async () => {
    await expect(make().run(['/nonexistent/kpng-nft'], '')).rejects.toThrow(/cannot run \/nonexistent\/kpng-nft/);
  });

  test('rejects when the shell itself cannot be started (its failure is kept for the command that waits)', async () => {
    // The spawn error comes while the command's input is being written, before it waits for its answer.
    const shell = make({ prefix: ['/nonexistent/kpng-no-shell'] });
    await expect(shell.run(['true'], 'x'.repeat(1 << 20))).rejects.toThrow(/cannot start the command shell/);
    await expect(shell.run(['true'], '')).rejects.toThrow(/cannot start the command shell/);
  });

  test('runs every command in one shell, one after another, each with its own stdin', async () => {
    const shell = make();
    const [a, b, c] = await Promise.all([shell.run([ppid], ''), shell.run(['cat'], 'x'), shell.run([ppid], '')]);
    expect(a.stdout).toBe(c.stdout);
    expect(Number(a.stdout)).not.toBe(process.pid);
    expect(b.stdout).toBe('x');
  });

  test('starts the shell through the prefix (what enters a namespace)', async () => {
    expect(
      (await make({ prefix: ['env', 'KPNG_SHELL_TEST=inside'] }).run(['printenv', 'KPNG_SHELL_TEST'], '')).stdout,
    ).toBe('inside\n');
  });

  test('hands an argument one line cannot carry to the fallback, with the prefix', async () => {
    const shell = make({ prefix: ['env', 'KPNG_SHELL_TEST=fallback'], fallback: processExecer });
    expect((await shell.run(['sh', '-c', 'echo "$KPNG_SHELL_TEST" a  b'], '')).stdout).toBe('fallback a b\n');
    await expect(make().run(['echo', 'a b'], '')).rejects.toThrow(/whitespace/);
  });

  test('rejects with the abort reason when aborted, and the next command gets a new shell', async () => {
    const shell = make();
    const before = (await shell.run([ppid], '')).stdout;
    const controller = new AbortController();
    const running = shell.run(['sleep', '5'], '', controller.signal);
    setTimeout(() => controller.abort(new Error('sync cancelled')), 50);
    await expect(running).rejects.toThrow('sync cancelled');
    const after = (await shell.run([ppid], '')).stdout;
    expect(after).not.toBe(before);
    expect(() => process.kill(Number(before), 0)).toThrow();
  });

  test('an idle shell holds nothing on the event loop; closing it does until it is gone', async () => {
    const children = (): number => process.getActiveResourcesInfo().filter((r) => r === 'ProcessWrap').length;
    const before = children();
    const shell = make();
    await shell.run(['cat'], 'x');
    expect(children()).toBe(before);
    const closing = shell.close();
    expect(children()).toBe(before + 1);
    await closing;
    expect(children()).toBe(before);
  });

  test('close ends the shell', async () => {
    const shell = make();
    const pid = Number((await shell.run([ppid], '')).stdout);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await shell.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
  test('runStream writes the pieces as they come and runs the command once they are all written', async () => {
    async function* pieces(): AsyncGenerator<string> {
      yield 'add table ip kpng\n';
      yield 'add chain ip kpng services\n';
    }
    expect(await make().runStream(['cat'], pieces())).toEqual({
      exitCode: 0,
      stdout: 'add table ip kpng\nadd chain ip kpng services\n',
      stderr: '',
    });
  });

  test('runStream never runs the command when its input fails midway; the next command runs', async () => {
    const marker = join(dir, 'ran');
    const touch = join(dir, 'touch.sh');
    await writeFile(touch, `cat > /dev/null; echo yes > ${marker}\n`);
    async function* failing(): AsyncGenerator<string> {
      yield 'add table ip kpng\n';
      throw new Error('render failed');
    }
    const shell = make();
    await expect(shell.runStream(['sh', touch], failing())).rejects.toThrow('render failed');
    await expect(readFile(marker, 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await shell.run(['cat'], 'next\n')).toEqual({ exitCode: 0, stdout: 'next\n', stderr: '' });
  });
});
