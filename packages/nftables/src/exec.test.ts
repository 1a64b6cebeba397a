import { describe, expect, test } from 'vitest';
import { processExecer } from './exec.js';

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

  test('rejects when the program cannot be started', async () => {
    await expect(processExecer.run(['/nonexistent/kpng-nft'], '')).rejects.toThrow(
      /cannot run \/nonexistent\/kpng-nft/,
    );
  });

  test('rejects with the abort reason when aborted', async () => {
    const controller = new AbortController();
    const running = processExecer.run(['sleep', '5'], '', controller.signal);
    controller.abort(new Error('sync cancelled'));
    await expect(running).rejects.toThrow('sync cancelled');
  });
});
