/**
 * The iptables tools of one flavour, run through the exec seam (inside a network namespace when
 * asked): `*-restore --noflush` for every sync (jumps from built-in chains included),
 * `-S` to probe the canary, `-D` for cleanup, `*-save` to find leftover chains and missing jumps,
 * `--version` to learn the flavour.
 */
import type { IPFamily } from '@kpng/core';
import type { IptablesFlavour } from '../render/config.js';
import type { Table } from '../render/skeleton.js';
import { command, flavourOf, type Tool } from './commands.js';
import { RestoreError } from './errors.js';
import { inNetns, startProcess, withTimeout, type Execer, type ExecResult } from '@kpng/kit';

/**
 * A restore started before its input is rendered (the process starts while the backend renders):
 * `write` the input in order, then `finish`. `abort` kills it first; the input then never reaches
 * a `COMMIT` it was not sent, so nothing of it is applied as long as the caller writes only
 * complete input (the backend writes once the whole input is rendered).
 */
export interface RestoreStream {
  write(chunk: string): void;
  /** Throws RestoreError (or ExecTimeoutError) as `restore` does. */
  finish(): Promise<void>;
  abort(): void;
}

export interface IptablesClientOptions {
  readonly execer: Execer;
  readonly flavour: IptablesFlavour;
  readonly netns?: string;
  /** Kill any command still running after this many ms (default: none) and throw `ExecTimeoutError`. */
  readonly timeoutMs?: number;
}

export class IptablesClient {
  readonly flavour: IptablesFlavour;
  readonly #execer: Execer;
  readonly #prefix: readonly string[];

  constructor(options: IptablesClientOptions) {
    this.flavour = options.flavour;
    // The kit's timeout: SIGTERM through the abort signal every execer honours, SIGKILL 5 s later;
    // a streamed restore's clock starts when its input is complete (at `finish`).
    this.#execer = options.timeoutMs === undefined ? options.execer : withTimeout(options.execer, options.timeoutMs);
    // Only the network namespace (nsenter): no mount namespace, no /sys remount per process, paid by every restore.
    this.#prefix = inNetns(options.netns, [], { via: 'nsenter' });
  }

  /** Runs any command in the client's namespace (killed after the client's timeout). */
  run(argv: readonly string[], stdin = ''): Promise<ExecResult> {
    return this.#execer.run([...this.#prefix, ...argv], stdin);
  }

  /** `restore`, started now, its input written later; the client's timeout runs from `finish`. */
  startRestore(family: IPFamily): RestoreStream {
    const argv = [command(family, this.flavour, 'restore'), ...RESTORE_ARGS];
    const started = startProcess(this.#execer, [...this.#prefix, ...argv]);
    const input: string[] = [];
    return {
      write(chunk) {
        input.push(chunk);
        started.write(chunk);
      },
      async finish() {
        const result = await started.end();
        if (result.exitCode !== 0)
          throw new RestoreError(argv[0] as string, result.stderr || result.stdout, input.join(''));
      },
      abort: () => started.kill(),
    };
  }

  #tool(family: IPFamily, tool: Tool, args: readonly string[], stdin = ''): Promise<ExecResult> {
    return this.run([command(family, this.flavour, tool), ...args], stdin);
  }

  /** `iptables-restore --noflush` (`--test`: parse and check only). Throws RestoreError. */
  async restore(family: IPFamily, input: string, options: { readonly test?: boolean } = {}): Promise<void> {
    const args = [...RESTORE_ARGS, ...(options.test === true ? ['--test'] : [])];
    const result = await this.#tool(family, 'restore', args, input);
    if (result.exitCode !== 0)
      throw new RestoreError(command(family, this.flavour, 'restore'), result.stderr || result.stdout, input);
  }

  /** `*-save -t TABLE`, or every table the kernel has (one process) without `table`. */
  async save(family: IPFamily, table?: Table): Promise<string> {
    const args = table === undefined ? [] : ['-t', table];
    const result = await this.#tool(family, 'save', args);
    if (result.exitCode !== 0)
      throw new Error(`${[command(family, this.flavour, 'save'), ...args].join(' ')} failed: ${result.stderr.trim()}`);
    return result.stdout;
  }

  /** Deletes the rule if present; true when it was. */
  async deleteRule(family: IPFamily, table: Table, chain: string, args: readonly string[]): Promise<boolean> {
    const result = await this.#tool(family, 'iptables', ['-w', '5', '-t', table, '-D', chain, ...args]);
    return result.exitCode === 0;
  }

  /** `iptables -C`: whether exactly this rule is in the chain (false too when the chain or its target is gone). */
  async ruleExists(family: IPFamily, table: Table, chain: string, args: readonly string[]): Promise<boolean> {
    const result = await this.#tool(family, 'iptables', ['-w', '5', '-t', table, '-C', chain, ...args]);
    return result.exitCode === 0;
  }

  async chainExists(family: IPFamily, table: Table, chain: string): Promise<boolean> {
    const result = await this.#tool(family, 'iptables', ['-w', '5', '-t', table, '-S', chain]);
    return result.exitCode === 0;
  }

  /** The flavour the host's `iptables` is (for `auto`), or the configured one. */
  async detectFlavour(): Promise<{ readonly flavour: 'legacy' | 'nft' | undefined; readonly version: string }> {
    const result = await this.#tool('IPv4', 'iptables', ['--version']);
    const version = result.stdout.trim();
    if (result.exitCode !== 0)
      throw new Error(`${command('IPv4', this.flavour, 'iptables')} --version failed: ${result.stderr.trim()}`);
    return { flavour: this.flavour === 'auto' ? flavourOf(version) : this.flavour, version };
  }
}

/** Wait up to 5 s for the xtables lock; change only the chains the input names. */
const RESTORE_ARGS = ['-w', '5', '--noflush'] as const;

/** One table's part (`*table` up to its `COMMIT`) of an `iptables-save` dump of every table; '' if absent. */
export function savedTable(dump: string, table: Table): string {
  const found = dump.startsWith(`*${table}\n`) ? 0 : dump.indexOf(`\n*${table}\n`);
  if (found < 0) return '';
  const start = found === 0 ? 0 : found + 1;
  const end = dump.indexOf('\nCOMMIT\n', start + 1);
  return dump.slice(start, end < 0 ? undefined : end + 8);
}
