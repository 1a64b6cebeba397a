import { inNetns } from '@kpng/kit';
import { killNamespaceProcesses } from './kill.js';
import { namespaceName } from './names.js';
import { run, runChecked, type RunOptions, type RunResult } from './run.js';
import { SpawnedProcess } from './spawned.js';

export interface ExecOptions extends RunOptions {
  /** When false, a non-zero exit resolves instead of throwing. Defaults to true. */
  readonly check?: boolean;
}

/**
 * A network namespace owned by this test process, named `kpng-t-<pid>-<name>`. Every command
 * runs through `ip netns exec`; `delete()` (or `await using`) stops what was spawned and removes
 * the namespace.
 */
export class NetworkNamespace implements AsyncDisposable {
  readonly name: string;
  readonly #spawned = new Set<SpawnedProcess>();
  #deleted = false;

  private constructor(name: string) {
    this.name = name;
  }

  /** Creates the namespace with its loopback up. */
  static async create(shortName: string): Promise<NetworkNamespace> {
    const namespace = new NetworkNamespace(namespaceName(shortName));
    await runChecked(['ip', 'netns', 'add', namespace.name]);
    try {
      await namespace.exec(['ip', 'link', 'set', 'lo', 'up']);
    } catch (error) {
      await namespace.delete();
      throw error;
    }
    return namespace;
  }

  /** Runs `argv` inside the namespace and waits for it (bounded by `timeoutMs`, 10 s by default). */
  exec(argv: readonly string[], options: ExecOptions = {}): Promise<RunResult> {
    this.#assertAlive();
    const inside = inNetns(this.name, argv);
    return options.check === false ? run(inside, options) : runChecked(inside, options);
  }

  /** Starts a long-running process inside the namespace; it is stopped by `delete()`. */
  spawn(argv: readonly string[]): SpawnedProcess {
    this.#assertAlive();
    const process = new SpawnedProcess(inNetns(this.name, argv));
    this.#spawned.add(process);
    return process;
  }

  /** Sets sysctls inside this namespace only, e.g. `{'net.ipv4.ip_forward': 1}`. */
  async sysctl(settings: Readonly<Record<string, string | number>>): Promise<void> {
    const assignments = Object.entries(settings).map(([key, value]) => `${key}=${value}`);
    if (assignments.length > 0) await this.exec(['sysctl', '-q', '-w', ...assignments]);
  }

  /** Runs `ip -batch -` inside the namespace: one process for many `ip` commands. */
  async ipBatch(commands: readonly string[]): Promise<void> {
    if (commands.length > 0) await this.exec(['ip', '-batch', '-'], { input: `${commands.join('\n')}\n` });
  }

  async delete(): Promise<void> {
    if (this.#deleted) return;
    this.#deleted = true;
    await Promise.all([...this.#spawned].map((process) => process.stop()));
    await killNamespaceProcesses(this.name);
    const result = await run(['ip', 'netns', 'delete', this.name]);
    if (result.exitCode !== 0 && !result.stderr.includes('No such file')) {
      throw new Error(`cannot delete namespace ${this.name}: ${result.stderr.trim()}`);
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.delete();
  }

  #assertAlive(): void {
    if (this.#deleted) throw new Error(`namespace ${this.name} was deleted`);
  }
}

/** Creates `kpng-t-<pid>-<name>` with its loopback up. */
export function createNamespace(name: string): Promise<NetworkNamespace> {
  return NetworkNamespace.create(name);
}
