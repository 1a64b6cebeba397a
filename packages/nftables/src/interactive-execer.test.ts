import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { processExecer } from '@kpng/kit';
import { InteractiveNftExecer, type InteractiveNftExecerOptions } from './interactive-execer.js';

// A stand-in nft (no kernel is touched) with nft -i's framing: for `include "FILE"` it prints the
// FILE's lines that start with `say ` (its "errors"), and `$$` for a line `pid`, and hangs for a
// line `hang`; any other line gets nft's syntax error (the line echoed, then carets), as the marker
// does in nft. Without -i it prints its arguments.
const FAKE_NFT = `#!/bin/sh
[ "$1" = "-i" ] || { echo "fake nft $*"; exit 0; }
while IFS= read -r line; do
  case "$line" in
    include*)
      f=\${line#include \\"}; f=\${f%\\"}
      while IFS= read -r l; do
        case "$l" in
          say\\ *) echo "\${l#say }" >&2;;
          pid) echo "$$";;
          hang) sleep 30;;
        esac
      done < "$f";;
    *) printf 'Error: syntax error, unexpected newline, expecting string\\n%s\\n    ^\\n' "$line" >&2;;
  esac
done
`;

describe('InteractiveNftExecer', () => {
  let dir: string;
  let nftPath: string;
  const execers: InteractiveNftExecer[] = [];
  const make = (options: Partial<InteractiveNftExecerOptions> = {}): InteractiveNftExecer => {
    const execer = new InteractiveNftExecer({ nftPath, fallback: processExecer, ...options });
    execers.push(execer);
    return execer;
  };
  const tx = (nft = nftPath): string[] => [nft, '-f', '-'];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kpng-interactive-test-'));
    nftPath = join(dir, 'nft');
    await writeFile(nftPath, FAKE_NFT);
    await chmod(nftPath, 0o755);
  });
  afterEach(async () => {
    for (const execer of execers.splice(0)) await execer.close();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('runs every transaction in one process, one after another, each answer its own', async () => {
    const execer = make();
    const [a, b, c] = await Promise.all([
      execer.run(tx(), 'pid\n'),
      execer.run(tx(), 'say Warning: only a warning\n'),
      execer.run(tx(), 'pid\n'),
    ]);
    expect(a.stderr).toBe(c.stderr);
    expect(Number(a.stderr)).not.toBe(process.pid);
    expect(b).toEqual({ exitCode: 0, stdout: '', stderr: 'Warning: only a warning\n' });
    expect(await execer.run(tx(), 'add table ip kpng\n')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  test('a transaction nft reports an Error: for fails, with the report as stderr; the next one runs', async () => {
    const execer = make();
    const error = ['In file included from <cmdline>:1:1-40:', '/tmp/x/in:1:5-9: Error: No such file or directory'];
    expect(await execer.run(tx(), error.map((line) => `say ${line}\n`).join(''))).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `${error.join('\n')}\n`,
    });
    expect((await execer.run(tx(), '')).exitCode).toBe(0);
  });

  test('runStream writes the pieces, then runs the transaction once', async () => {
    async function* pieces(): AsyncGenerator<string> {
      yield 'say Error: first\n';
      yield 'say second\n';
    }
    expect(await make().runStream(tx(), pieces())).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'Error: first\nsecond\n',
    });
  });

  test('hands every other command to the fallback, with the prefix', async () => {
    const execer = make({ prefix: ['env', 'KPNG=1'] });
    expect((await execer.run([nftPath, '--check', '-f', '-'], '')).stdout).toBe('fake nft --check -f -\n');
    expect((await execer.run(['sh', '-c', 'echo "$KPNG"'], '')).stdout).toBe('1\n');
  });

  test('a transaction over maxBytes runs in a fresh nft -f FILE through the fallback', async () => {
    const execer = make({ maxBytes: 16 });
    expect((await execer.run(tx(), 'pid\n')).exitCode).toBe(0);
    const long = await execer.run(tx(), 'add table ip kpng-long\n');
    expect(long.stdout).toMatch(/^fake nft -f \/\S+\/in\n$/);
  });

  test('rejects when nft cannot be started, for each command waiting (each tries a new start)', async () => {
    const execer = make({ prefix: ['/nonexistent/kpng-no-prefix'] });
    await expect(execer.run(tx(), 'x'.repeat(1 << 20))).rejects.toThrow(/cannot start nft -i/);
    await expect(execer.run(tx(), '')).rejects.toThrow(/cannot start nft -i/);
  });

  test('rejects with what nft said when it exits (an nft built without -i)', async () => {
    const noCli = join(dir, 'nft-no-cli');
    await writeFile(noCli, '#!/bin/sh\necho "Error: interactive CLI not supported in this build" >&2\nexit 1\n');
    await chmod(noCli, 0o755);
    await expect(make({ nftPath: noCli }).run(tx(noCli), '')).rejects.toThrow(
      /nft -i exited \(1\): Error: interactive CLI not supported in this build/,
    );
  });

  test('rejects with the abort reason when aborted, and the next transaction gets a new nft', async () => {
    const execer = make();
    const before = Number((await execer.run(tx(), 'pid\n')).stderr);
    const controller = new AbortController();
    const running = execer.run(tx(), 'hang\n', controller.signal);
    setTimeout(() => controller.abort(new Error('sync cancelled')), 50);
    await expect(running).rejects.toThrow('sync cancelled');
    const after = Number((await execer.run(tx(), 'pid\n')).stderr);
    expect(after).not.toBe(before);
    // The old nft was SIGKILLed; until node reaps it, it is a zombie that signal 0 still finds (seen
    // under load): wait for it to be gone (a generous bound against a hang, not a figure).
    await vi.waitFor(() => expect(() => process.kill(before, 0)).toThrow(), { timeout: 20_000, interval: 50 });
  });

  test('close ends nft', async () => {
    const execer = make();
    const pid = Number((await execer.run(tx(), 'pid\n')).stderr);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await execer.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
