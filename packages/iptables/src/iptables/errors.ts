/**
 * A failed `iptables-restore`: its own stderr, plus the input line it names (`Error occurred at
 * line: N`, `line N failed`), so a log shows which rule the kernel refused.
 */
export class RestoreError extends Error {
  readonly line: number | undefined;
  readonly lineText: string | undefined;
  readonly stderr: string;

  constructor(command: string, stderr: string, input: string) {
    const line = failedLine(stderr);
    const lineText = line === undefined ? undefined : input.split('\n')[line - 1];
    super(
      `${command} failed: ${stderr.trim().split('\n')[0] ?? ''}${lineText === undefined ? '' : ` (line ${line}: ${lineText})`}`,
    );
    this.name = 'RestoreError';
    this.line = line;
    this.lineText = lineText;
    this.stderr = stderr;
  }
}

export function failedLine(stderr: string): number | undefined {
  const match = /line:? (\d+)/.exec(stderr);
  return match === null ? undefined : Number(match[1]);
}

// A command killed by the client's timeout: the kit's error (withTimeout).
export { ExecTimeoutError } from '@kpng/kit';
