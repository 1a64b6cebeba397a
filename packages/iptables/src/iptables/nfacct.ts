/**
 * Upstream iptables mode's nfacct counters (pkg/proxy/iptables with pkg/util/nfacct): two named
 * extended-accounting objects of the node's network namespace, created at start if missing,
 * matched by `-m nfacct --nfacct-name NAME` in two rules (INVALID packets dropped in KUBE-FORWARD,
 * IPv4 localhost NodePort packets accepted in KUBE-NODEPORTS), and read at every /metrics scrape.
 * A counter that cannot be created is left out of the rules (upstream: "nfacct based metrics won't
 * be available"), never fatal. Through the `nfacct` tool (Debian's nfacct) and the exec seam.
 */
import { inNetns, type Execer } from '@kpng/kit';
import { NFACCT_INVALID_DROPPED, NFACCT_LOCALHOST_NODEPORTS } from '../render/names.js';

export { NFACCT_INVALID_DROPPED, NFACCT_LOCALHOST_NODEPORTS };
export const NFACCT_COUNTERS: readonly string[] = [NFACCT_INVALID_DROPPED, NFACCT_LOCALHOST_NODEPORTS];

/** What a read of one object gives. */
export interface NfacctCounter {
  readonly name: string;
  readonly packets: number;
  readonly bytes: number;
}

export interface NfacctToolOptions {
  readonly execer: Execer;
  readonly netns?: string;
  readonly nfacctPath?: string;
  /** Per call (a /metrics scrape waits on it). */
  readonly timeoutMs?: number;
}

/** `{ pkts = 00000000000000000012, bytes = 00000000000000000720 } = NAME;`, nfacct's plain line. */
const LINE = /^\{ pkts = (\d+), bytes = (\d+) \} = ([^;\s]+);$/;

/** Parses `nfacct get`/`nfacct list` output; lines of another shape are skipped. */
export function parseNfacct(stdout: string): NfacctCounter[] {
  const counters: NfacctCounter[] = [];
  for (const line of stdout.split('\n')) {
    const m = LINE.exec(line.trim());
    if (m === null) continue;
    counters.push({ name: m[3]!, packets: Number(m[1]), bytes: Number(m[2]) });
  }
  return counters;
}

export class NfacctTool {
  readonly #execer: Execer;
  readonly #prefix: readonly string[];
  readonly #timeoutMs: number;

  constructor(options: NfacctToolOptions) {
    this.#execer = options.execer;
    this.#prefix = inNetns(options.netns, [options.nfacctPath ?? 'nfacct']);
    this.#timeoutMs = options.timeoutMs ?? 5_000;
  }

  /** Reads one object; undefined when it does not exist. Rejects when the tool cannot run. */
  async get(name: string): Promise<NfacctCounter | undefined> {
    assertName(name);
    const result = await this.#run(['get', name]);
    if (result.exitCode !== 0) return undefined;
    return parseNfacct(result.stdout).find((c) => c.name === name);
  }

  /** Creates the object unless it exists (as upstream's Ensure); rejects with why it could not. */
  async ensure(name: string): Promise<void> {
    if ((await this.get(name)) !== undefined) return;
    const result = await this.#run(['add', name]);
    // Another process may have created it meanwhile (the tool then says "Device or resource busy").
    if (result.exitCode !== 0 && (await this.get(name)) === undefined)
      throw new Error(`nfacct add ${name}: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
  }

  /** Every object of the namespace, in one `nfacct list`. Rejects when the tool cannot run or fails. */
  async list(): Promise<NfacctCounter[]> {
    const result = await this.#run(['list']);
    if (result.exitCode !== 0) throw new Error(`nfacct list: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
    return parseNfacct(result.stdout);
  }

  #run(args: readonly string[]) {
    return this.#execer.run([...this.#prefix, ...args], '', AbortSignal.timeout(this.#timeoutMs));
  }
}

/** The kernel's NFACCT_NAME_MAX is 32 bytes with its NUL; only kpng's own constant names are passed. */
function assertName(name: string): void {
  if (!/^[A-Za-z0-9_.-]{1,31}$/.test(name)) throw new Error(`bad nfacct object name ${JSON.stringify(name)}`);
}

/**
 * The counters for /metrics: one `nfacct list` serves every scrape that asks while it runs and for
 * `reuseMs` after (a burst of scrapes starts one process, not two per scrape).
 */
export class NfacctReader {
  readonly #tool: Pick<NfacctTool, 'list'>;
  readonly #reuseMs: number;
  readonly #now: () => number;
  #last: { readonly at: number; readonly read: Promise<ReadonlyMap<string, number>> } | undefined;

  constructor(
    tool: Pick<NfacctTool, 'list'>,
    options: { readonly reuseMs?: number; readonly now?: () => number } = {},
  ) {
    this.#tool = tool;
    this.#reuseMs = options.reuseMs ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  /** The packets counted by `name`; undefined when it cannot be read (no tool, no object). */
  async packets(name: string): Promise<number | undefined> {
    const now = this.#now();
    if (this.#last === undefined || now - this.#last.at > this.#reuseMs) {
      const read = this.#tool.list().then(
        (counters) => new Map(counters.map((c) => [c.name, c.packets])),
        () => new Map<string, number>(),
      );
      this.#last = { at: now, read };
    }
    return (await this.#last.read).get(name);
  }
}
