import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { inNetns, processExecer, runChecked, spawnChild, withTimeout } from '@kpng/kit';
import { scaledTimeout, type NetworkNamespace, type ProbeResult } from '@kpng/lab';
import { readCgroupV2Mounts } from '../src/cgroup/cgroup.js';

const PREFIX = 'kpng-test-';

/** Whether this kernel has bpf_sock_destroy, which ends stale UDP sockets: Linux 6.5 (the lab VM runs 6.1). */
const [major = 0, minor = 0] = release().split('.').map(Number);
export const SOCK_DESTROY = major > 6 || (major === 6 && minor >= 5);
const CLIENT = new URL('./fixtures/sock-client.mjs', import.meta.url).pathname;

export interface ClientResult {
  readonly ok: boolean;
  readonly reply?: string;
  readonly peer?: string;
  readonly error?: string;
}

export interface ClientRequest {
  readonly proto: 'tcp' | 'udp' | 'udp-sendto';
  readonly ip: string;
  readonly port: number;
  readonly count?: number;
  readonly timeoutMs?: number;
}

const ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ECONNRESET: 'reset',
};

/** The socket client's answer in the lab probe's shape, for the behaviour table's own checks. */
export function asProbe(r: ClientResult): ProbeResult {
  if (!r.ok || r.reply === undefined) return { ok: false, error: ERRORS[r.error ?? ''] ?? r.error ?? 'unknown' };
  const [server, seenSource] = r.reply.split(' ');
  return { ok: true, reply: r.reply, ...(server ? { server } : {}), ...(seenSource ? { seenSource } : {}) };
}

/**
 * The socket client's budget per exchange, and (below) the slack for its own start: 2 s and 10 s,
 * times the lab VM's scale (`KPNG_LAB_TIMEOUT_SCALE`): under emulation on a loaded host a node start
 * took over 12 s (the 6.1 guest, 2026-11-28). Budgets only; the cases assert outcomes.
 */
const clientTimeoutMs = (): number => scaledTimeout(2_000);

const alive = (pid: number): boolean => existsSync(`/proc/${pid}`);

/**
 * A child cgroup of the cgroup v2 root made for one test file (`kpng-test-PID-RANDOM`): the
 * programs attach here, and only processes the test spawns are moved in. `remove()` ends what is
 * still in it (only ever the test's own processes) and deletes it. Nothing attaches to the root.
 */
export class TestCgroup {
  private constructor(readonly path: string) {}

  static create(): TestCgroup {
    const [root] = readCgroupV2Mounts();
    if (root === undefined) throw new Error('no cgroup v2 mount');
    sweepTestCgroups(root);
    const path = join(root, `${PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`);
    mkdirSync(path);
    return new TestCgroup(path);
  }

  /** Runs the socket client inside `namespace`, as a process of this cgroup (moved in before exec). */
  async client(namespace: NetworkNamespace, request: ClientRequest): Promise<ClientResult[]> {
    return this.#client(namespace, request, true);
  }

  /** The same client from outside the cgroup. */
  async outsider(namespace: NetworkNamespace, request: ClientRequest): Promise<ClientResult[]> {
    return this.#client(namespace, request, false);
  }

  async #client(namespace: NetworkNamespace, request: ClientRequest, inside: boolean): Promise<ClientResult[]> {
    const full = { count: 1, timeoutMs: clientTimeoutMs(), ...request };
    const argv = inNetns(namespace.name, [process.execPath, CLIENT, JSON.stringify(full)]);
    // `ip netns exec` remounts /sys, hiding the cgroup mount: the shell moves itself in first.
    const command = inside ? ['sh', '-c', 'echo $$ > "$0" && exec "$@"', `${this.path}/cgroup.procs`, ...argv] : argv;
    // The client's own timeouts bound it; this only ends a client that hangs past all of them.
    const execer = withTimeout(processExecer, scaledTimeout(10_000) + full.count * full.timeoutMs);
    const { stdout } = await runChecked(execer, command);
    return JSON.parse(stdout) as ClientResult[];
  }

  /**
   * A connected UDP socket held open in `namespace` (the client's `udp-hold`): `first` is its first
   * exchange; `next()` sends once more on the same socket (then reconnects after a failure).
   */
  async hold(
    namespace: NetworkNamespace,
    request: Omit<ClientRequest, 'proto' | 'count'>,
  ): Promise<{ first: ClientResult; next: () => Promise<{ second: ClientResult; reconnect?: ClientResult }> }> {
    const full = { timeoutMs: clientTimeoutMs(), ...request, proto: 'udp-hold', count: 1 };
    const argv = inNetns(namespace.name, [process.execPath, CLIENT, JSON.stringify(full)]);
    const lines: string[] = [];
    let partial = '';
    let wake: (() => void) | undefined;
    const child = spawnChild(['sh', '-c', 'echo $$ > "$0" && exec "$@"', `${this.path}/cgroup.procs`, ...argv], {
      input: true,
      onStdout: (chunk) => {
        const parts = (partial + String(chunk)).split('\n');
        partial = parts.pop()!;
        lines.push(...parts);
        wake?.();
      },
    });
    let exited = false;
    void child.exited.then(() => {
      exited = true;
      wake?.();
    });
    // The client's own timeouts bound each wait (it prints, or exits and this throws).
    const line = async (): Promise<unknown> => {
      while (lines.length === 0) {
        if (exited) throw new Error('the UDP client exited early');
        await new Promise<void>((resolve) => (wake = resolve));
      }
      return JSON.parse(lines.shift()!);
    };
    const { first } = (await line()) as { first: ClientResult };
    return {
      first,
      next: async () => {
        child.write('next\n');
        child.endInput();
        return (await line()) as { second: ClientResult; reconnect?: ClientResult };
      },
    };
  }

  /** What bpftool sees attached here: `attach_type program_name`, sorted. */
  async attached(): Promise<string[]> {
    const out = (await runChecked(processExecer, ['bpftool', '-j', 'cgroup', 'show', this.path])).stdout.trim();
    const list = (out === '' ? [] : JSON.parse(out)) as { attach_type: string; name: string }[];
    return list.map((p) => `${p.attach_type} ${p.name}`).sort();
  }

  remove(): void {
    removeCgroup(this.path);
  }
}

function removeCgroup(path: string): void {
  if (!existsSync(path)) return;
  for (let attempt = 0; attempt < 50; attempt++) {
    const pids = readFileSync(`${path}/cgroup.procs`, 'utf8').split('\n').filter(Boolean).map(Number);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    try {
      rmdirSync(path);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EBUSY') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); // the killed exit
    }
  }
  throw new Error(`cgroup ${path} still busy`);
}

/** Test cgroups whose test process died without removing them. */
function sweepTestCgroups(root: string): void {
  for (const entry of readdirSync(root)) {
    const match = /^kpng-test-(\d+)-[0-9a-f]+$/.exec(entry);
    if (match && !alive(Number(match[1]))) removeCgroup(join(root, entry));
  }
}
