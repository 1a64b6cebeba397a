import type { Registry } from 'prom-client';
import type { Backend } from '../sync/backend.js';
import type { ExplainContext, ExplainReport, ServiceRef } from './explain.js';

/** One of a backend's own command-line flags (kebab-case name, without `--`). */
export interface BackendFlag {
  readonly type: 'string' | 'boolean';
  /** One line for `--help`; the default, if any, is appended. */
  readonly help: string;
  /** Shown in `--help` only: `parseFlags` receives `undefined` for an absent flag and applies its own defaults. */
  readonly default?: string;
  /** May be given several times; `parseFlags` receives an array. */
  readonly multiple?: boolean;
  /** Placeholder for the value in `--help`, e.g. `CIDRS`. */
  readonly value?: string;
}

export type FlagValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/** What the runtime hands a backend when it creates it. */
export interface BackendContext {
  readonly nodeName: string;
  /** Program the kernel of this network namespace instead of the process's own (tests, labs). */
  readonly netns?: string;
  /** Register the backend's metrics here; the runtime serves it on /metrics beside core's. */
  readonly registry: Registry;
}

/**
 * A backend package's contribution to every program: its name, its flags, and how to build it.
 * `kpng --backend <name>`, the backend's own `kpng-<name>` program and the compat kube-proxy all
 * load a backend through this one shape, in process or over a core's stream alike.
 */
export interface BackendModule<O = unknown> {
  /** `nft` for `@kpng/nft`: `kpng --backend nft` and `--backend @kpng/nft` both find it. */
  readonly name: string;
  /** The backend's own program, e.g. `kpng-nft`. */
  readonly program: string;
  /** The `/proxyMode` answer, as kube-proxy's: `nftables`, `iptables`, `ipvs`, `kernelspace`. */
  readonly proxyMode: string;
  /** One line for `--help`. */
  readonly summary: string;
  readonly flags: Readonly<Record<string, BackendFlag>>;
  /**
   * False for a backend that programs nothing (the log backend): only then may a program fall
   * back to the example cluster when no cluster is configured. Default true.
   */
  readonly programsKernel?: boolean;
  /**
   * Consumes the node-local policy view (`NodeLocalState.policy`): the kube source then also watches
   * Pods, Namespaces and NetworkPolicies, and the core keeps the view. Only the in-process kube
   * source delivers those kinds (a program refuses other sources). Default false.
   */
  readonly policy?: boolean;
  /** Validated options from the parsed flag values; throws `UsageError` naming the flag. */
  parseFlags(values: FlagValues): O;
  create(options: O, ctx: BackendContext): Backend | Promise<Backend>;
  /**
   * `kpng explain NS/NAME` (and the compat `kube-proxy explain`): reads what this backend
   * programmed in the kernel for one Service (one report per table or family read) and selects
   * that Service's objects. Reads only.
   */
  explain?(options: O, service: ServiceRef, ctx: ExplainContext): Promise<readonly ExplainReport[]>;
}

/** Identity, for type inference of `O` at the definition site. */
export function defineBackend<O>(module: BackendModule<O>): BackendModule<O> {
  return module;
}
