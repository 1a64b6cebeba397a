import { detectCapabilities, type Capabilities } from './capabilities.js';
import { NftError } from './errors.js';
import { ExecTimeoutError, inNetns, processExecer, runChunked, TurnBudget, withTimeout, type Execer } from '@kpng/kit';
import { ShellExecer } from './shell-execer.js';
import { InteractiveNftExecer } from './interactive-execer.js';
import { parseListing } from './listing/parse-listing.js';
import { sortForDump } from './canonical.js';
import type { Nft, RunOptions } from './nft.js';
import type { Element, Family, NftObject } from './objects/types.js';
import { FAMILIES } from './objects/types.js';
import { streamOperations } from './render-transaction.js';
import { checkName } from './syntax.js';
import { Transaction } from './transaction.js';

export interface NftClientOptions {
  /** Defaults to the kit's `processExecer`. */
  readonly execer?: Execer;
  /** Run every nft command inside this network namespace (`ip netns exec NETNS nft …`). */
  readonly netns?: string;
  /** Defaults to `nft` (looked up in PATH). */
  readonly nftPath?: string;
  /**
   * Run every command through one long-lived shell started once (inside `netns`), instead of
   * starting `ip netns exec … nft` from this process each time: see `ShellExecer`. Ignored with
   * `execer`. The client's `close()` ends the shell.
   */
  readonly shell?: boolean;
  /**
   * Run transactions (`run`) through one long-lived `nft -i` started once (inside `netns`), and
   * everything else through the shell (as `shell: true`): see `InteractiveNftExecer`. A transaction
   * then costs no process start. Ignored with `execer`; when this nft cannot run `-i` (built
   * without its CLI), transactions go through the shell. The client's `close()` ends both.
   */
  readonly interactive?: boolean;
  /**
   * Kill any nft command still running after this many ms (default: none) and fail it with an
   * `NftError` of kind `timeout`: a hung `nft -f` would otherwise hold its caller forever. A killed
   * `nft -f` commits its transaction whole or not at all (the kernel applies a batch atomically),
   * so after a timeout the caller does not know which: it must rewrite from scratch. With `shell`,
   * the shell (and everything it runs) is killed, and the next command starts a new one.
   */
  readonly timeoutMs?: number;
}

/**
 * Creates a client after probing the host once: nft >= 1.0.1, native `destroy`, object comments.
 * Throws `NftError` kind `not-supported` when nft is too old.
 */
export async function createNftClient(options: NftClientOptions = {}): Promise<NftClient> {
  const namespace = inNetns(options.netns, []);
  const own = options.execer === undefined;
  const shell =
    own && (options.shell === true || options.interactive === true)
      ? new ShellExecer({ prefix: namespace, fallback: processExecer })
      : undefined;
  const nftPath = options.nftPath ?? 'nft';
  let interactive =
    own && options.interactive === true && shell !== undefined
      ? new InteractiveNftExecer({ prefix: namespace, nftPath, fallback: shell })
      : undefined;
  const timed = (execer: Execer): Execer =>
    options.timeoutMs === undefined ? execer : withTimeout(execer, options.timeoutMs);
  // The shell and nft -i are already inside the namespace.
  const prefix = shell === undefined ? namespace : [];
  const nft = (args: readonly string[]): string[] => [...prefix, nftPath, ...args];
  const close = async (): Promise<void> => {
    await interactive?.close();
    await shell?.close();
  };
  try {
    const capabilities = await detectCapabilities(timed(shell ?? options.execer ?? processExecer), nft);
    if (interactive !== undefined && !(await startsInteractive(timed(interactive), nft(['-f', '-'])))) {
      await interactive.close();
      interactive = undefined;
    }
    return new NftClient(timed(interactive ?? shell ?? options.execer ?? processExecer), nft, capabilities, close);
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Whether `nft -i` runs an (empty) transaction: false when it cannot start or answer within
 * `PROBE_MS` (a deadline is the behaviour: an nft that reads its input without answering would
 * hold every sync; generous, as a start on a loaded machine takes seconds).
 */
async function startsInteractive(execer: Execer, argv: readonly string[]): Promise<boolean> {
  try {
    return (await execer.run(argv, '', AbortSignal.timeout(PROBE_MS))).exitCode === 0;
  } catch {
    return false;
  }
}

const PROBE_MS = 30_000;

/** A command the client's `timeoutMs` killed (the kit's `withTimeout`), as an `NftError` of kind `timeout`. */
function asNftError(e: unknown): never {
  if (e instanceof ExecTimeoutError) throw new NftError(e.message, 'timeout', '', [], { cause: e });
  throw e;
}

/** Runs transactions through `nft -f -`, one atomic invocation per transaction. */
export class NftClient implements Nft {
  readonly capabilities: Capabilities;
  readonly #execer: Execer;
  readonly #nft: (args: readonly string[]) => string[];
  readonly #close: () => Promise<void> | undefined;

  constructor(
    execer: Execer,
    nft: (args: readonly string[]) => string[],
    capabilities: Capabilities,
    close: () => Promise<void> | undefined = () => undefined,
  ) {
    this.#execer = execer;
    this.#nft = nft;
    this.capabilities = capabilities;
    this.#close = close;
  }

  /** Ends what the client keeps running (the shell of `shell: true`); a later command starts it again. */
  async close(): Promise<void> {
    await this.#close();
  }

  newTransaction(): Transaction {
    return new Transaction();
  }

  run(tx: Transaction, options: RunOptions = {}): Promise<void> {
    return this.#apply(['-f', '-'], tx, options);
  }

  check(tx: Transaction, options: RunOptions = {}): Promise<void> {
    return this.#apply(['--check', '-f', '-'], tx, options);
  }

  async listTable(family: Family, table: string, options: RunOptions = {}): Promise<readonly NftObject[]> {
    const output = await this.#list(['-a', 'list', 'table', family, table], [['table', table]], family, options);
    return sortForDump(parseListing(output));
  }

  async listElements(
    family: Family,
    table: string,
    container: { readonly set: string } | { readonly map: string },
    options: RunOptions = {},
  ): Promise<readonly Element[]> {
    const [kind, name] = 'set' in container ? (['set', container.set] as const) : (['map', container.map] as const);
    const output = await this.#list(
      ['list', kind, family, table, name],
      [
        ['table', table],
        [kind, name],
      ],
      family,
      options,
    );
    return parseListing(output).filter((object): object is Element => object.kind === 'element');
  }

  async #apply(args: readonly string[], tx: Transaction, options: RunOptions): Promise<void> {
    if (tx.error !== undefined) throw tx.error;
    if (tx.size === 0) return;
    const rendering = {
      objectComments: this.capabilities.objectComments,
      emulateDestroy: !this.capabilities.destroy,
      batchElements: true,
    };
    // The text of a full sync's transaction is long to write at s10k: not in one turn, and
    // streamed (its deferred objects made, rendered and written a chunk at a time) so that neither
    // the objects nor the text are ever whole in memory. nft runs once the input is complete: an
    // invalid object found on the way rejects here, before nft ran.
    const streamed = streamOperations(tx.ops(), rendering, new TurnBudget(10));
    const result = await runChunked(this.#execer, this.#nft(args), streamed.chunks, options.signal).catch(asNftError);
    if (result.exitCode !== 0) {
      const layout = streamed.layout();
      throw NftError.fromNft(result.stderr, layout.lineOperations, tx, layout);
    }
  }

  /** nft joins its arguments into one command line, so names are validated before use. */
  async #list(
    args: readonly string[],
    names: readonly (readonly [string, string])[],
    family: Family,
    options: RunOptions,
  ): Promise<string> {
    const problem = FAMILIES.includes(family)
      ? names.map(([what, name]) => checkName(what, name)).find(Boolean)
      : `unknown family ${family}`;
    if (problem !== undefined) throw new NftError(problem, 'invalid', '');
    const result = await this.#execer.run(this.#nft(args), '', options.signal).catch(asNftError);
    if (result.exitCode !== 0) throw NftError.fromNft(result.stderr);
    return result.stdout;
  }
}
