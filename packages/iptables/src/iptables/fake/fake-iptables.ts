/**
 * An in-memory iptables for unit tests, behind the same exec seam as the real tools: it answers
 * `ip{,6}tables[-legacy|-nft][-restore|-save]` with iptables' semantics (see restore.ts and
 * tables.ts), `sysctl -w` by recording, `nfacct add|get|list` over its own objects, and refuses anything else, so a test sees exactly what
 * the backend ran. A test can make the next restore fail, and can change state behind the
 * backend's back (another program flushing or deleting chains).
 */
import type { IPFamily } from '@kpng/core';
import type { Execer, ExecResult } from '@kpng/kit';
import { applyRestore } from './restore.js';
import { checkTarget, deleteChain, emptyTable, saveTables, TableError, type TableState } from './tables.js';

export interface RecordedRestore {
  readonly family: IPFamily;
  readonly input: string;
  readonly noflush: boolean;
  readonly test: boolean;
  readonly ok: boolean;
}

const TOOL = /^(ip6?)tables(?:-(legacy|nft))?(?:-(restore|save))?$/;

export class FakeIptables implements Execer {
  readonly restores: RecordedRestore[] = [];
  readonly commands: string[] = [];
  readonly #families = new Map<IPFamily, Map<string, TableState>>();
  readonly #version: string;
  #failNext: { family: IPFamily | undefined; message: string } | undefined;
  #hangNext: 'restore' | 'save' | undefined;
  /** nfacct objects: name -> packets (bytes are packets x 60 here). */
  readonly nfacct = new Map<string, number>();

  constructor(options: { readonly flavour?: 'legacy' | 'nft' } = {}) {
    this.#version = `iptables v1.8.9 (${options.flavour === 'legacy' ? 'legacy' : 'nf_tables'})`;
  }

  /** The next restore (of `family`, or of any family) fails with `message`, changing nothing. */
  failNextRestore(message = 'iptables-restore: line 1 failed', family?: IPFamily): void {
    this.#failNext = { family, message };
  }

  /** The next restore (or save) hangs until its abort signal (the client's timeout) kills it, changing nothing. */
  hangNext(tool: 'restore' | 'save'): void {
    this.#hangNext = tool;
  }

  tables(family: IPFamily): Map<string, TableState> {
    let tables = this.#families.get(family);
    if (tables === undefined) this.#families.set(family, (tables = new Map()));
    return tables;
  }

  /** `iptables-save` text for a family (optionally one table). */
  save(family: IPFamily, table?: string): string {
    return saveTables(this.tables(family), table);
  }

  /** The rules of a chain as restore lines (`-A CHAIN ...`), or undefined if it does not exist. */
  chain(family: IPFamily, table: string, chain: string): string[] | undefined {
    const state = this.tables(family).get(table)?.get(chain);
    if (state === undefined) return undefined;
    return saveTables(new Map([[table, new Map([[chain, state]])]]))
      .split('\n')
      .filter((l) => l.startsWith('-A '));
  }

  chainNames(family: IPFamily, table: string): string[] {
    return [...(this.tables(family).get(table)?.keys() ?? [])];
  }

  /** Another program deletes a user chain (flushing it and every rule jumping to it first). */
  removeChain(family: IPFamily, table: string, chain: string): void {
    const state = this.tables(family).get(table);
    if (state === undefined) return;
    for (const c of state.values()) c.rules = c.rules.filter((r) => !r.includes(chain));
    state.get(chain)!.rules = [];
    deleteChain(state, chain);
  }

  /** nfacct 1.0's answers (its plain line per object, its errors and exit codes). */
  #nfacct([verb, name]: readonly string[]): ExecResult {
    const line = (n: string, pkts: number) =>
      `{ pkts = ${String(pkts).padStart(20, '0')}, bytes = ${String(pkts * 60).padStart(20, '0')} } = ${n};\n`;
    const fail = (why: string): ExecResult => ({ exitCode: 1, stdout: '', stderr: `nfacct v1.0.2: error: ${why}\n` });
    if (verb === 'list') return ok([...this.nfacct].map(([n, p]) => line(n, p)).join(''));
    if (name === undefined) return fail('Invalid argument');
    if (verb === 'get') {
      const pkts = this.nfacct.get(name);
      return pkts === undefined ? fail('No such file or directory') : ok(line(name, pkts));
    }
    if (verb === 'add') {
      if (this.nfacct.has(name)) return fail('Device or resource busy');
      this.nfacct.set(name, 0);
      return ok();
    }
    return fail('Invalid argument');
  }

  async run(argv: readonly string[], stdin: string, signal?: AbortSignal): Promise<ExecResult> {
    let args = [...argv];
    if (args[0] === 'ip' && args[1] === 'netns' && args[2] === 'exec') args = args.slice(4);
    if (args[0] === 'nsenter' && args[1]?.startsWith('--net=')) args = args.slice(2);
    this.commands.push(args.join(' '));
    const [file, ...rest] = args;
    if (file === 'sysctl') return ok();
    if (file === 'nfacct') return this.#nfacct(rest);
    const match = TOOL.exec(file ?? '');
    if (match === null)
      return { exitCode: 127, stdout: '', stderr: `fake iptables: unexpected command ${args.join(' ')}` };
    const family: IPFamily = match[1] === 'ip6' ? 'IPv6' : 'IPv4';
    if (match[3] !== undefined && match[3] === this.#hangNext) {
      this.#hangNext = undefined;
      if (match[3] === 'restore') this.restores.push({ family, input: stdin, noflush: true, test: false, ok: false });
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));
    }
    if (match[3] === 'restore') return this.#restore(family, rest, stdin);
    if (match[3] === 'save') {
      const t = rest.indexOf('-t');
      return ok(this.save(family, t >= 0 ? rest[t + 1] : undefined));
    }
    return this.#iptables(family, rest);
  }

  #restore(family: IPFamily, args: readonly string[], input: string): ExecResult {
    const noflush = args.includes('--noflush') || args.includes('-n');
    const test = args.includes('--test') || args.includes('-t');
    const fail = this.#failNext;
    if (fail !== undefined && (fail.family === undefined || fail.family === family)) {
      this.#failNext = undefined;
      this.restores.push({ family, input, noflush, test, ok: false });
      return { exitCode: 1, stdout: '', stderr: fail.message };
    }
    try {
      applyRestore(this.tables(family), input, { noflush, test });
      this.restores.push({ family, input, noflush, test, ok: true });
      return ok();
    } catch (e) {
      this.restores.push({ family, input, noflush, test, ok: false });
      return { exitCode: 1, stdout: '', stderr: `iptables-restore: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  #iptables(family: IPFamily, args: readonly string[]): ExecResult {
    if (args.includes('--version')) return ok(`${this.#version}\n`);
    const rest = [...args];
    const w = rest.indexOf('-w');
    if (w >= 0) rest.splice(w, /^\d+$/.test(rest[w + 1] ?? '') ? 2 : 1);
    const t = rest.indexOf('-t');
    const tableName = t >= 0 ? (rest.splice(t, 2)[1] as string) : 'filter';
    const [verb, chainName, ...rule] = rest;
    const tables = this.tables(family);
    const table = tables.get(tableName) ?? emptyTable(tableName);
    tables.set(tableName, table);
    const chain = chainName === undefined ? undefined : table.get(chainName);
    const noChain = { exitCode: 1, stdout: '', stderr: 'iptables: No chain/target/match by that name.\n' };
    const same = (r: readonly string[]): boolean => r.length === rule.length && r.every((x, i) => x === rule[i]);
    try {
      switch (verb) {
        case '-C':
          return chain?.rules.some(same) === true
            ? ok()
            : { ...noChain, stderr: 'iptables: Bad rule (does a matching rule exist in that chain?).\n' };
        case '-I':
        case '-A':
          if (chain === undefined) return noChain;
          checkTarget(table, rule);
          if (verb === '-I') chain.rules.unshift(rule);
          else chain.rules.push(rule);
          return ok();
        case '-D': {
          const i = chain?.rules.findIndex(same) ?? -1;
          if (chain === undefined || i < 0) return noChain;
          chain.rules.splice(i, 1);
          return ok();
        }
        case '-S':
          return chain === undefined ? noChain : ok(`-N ${chainName}\n`);
        case '-N':
          if (chain !== undefined) return { exitCode: 1, stdout: '', stderr: 'iptables: Chain already exists.\n' };
          table.set(chainName as string, { builtin: false, rules: [] });
          return ok();
        case '-F':
          if (chain === undefined) return noChain;
          chain.rules = [];
          return ok();
        case '-X':
          deleteChain(table, chainName as string);
          return ok();
        default:
          return { exitCode: 2, stdout: '', stderr: `fake iptables: unsupported ${args.join(' ')}` };
      }
    } catch (e) {
      if (e instanceof TableError) return { exitCode: 1, stdout: '', stderr: `iptables: ${e.message}\n` };
      throw e;
    }
  }
}

function ok(stdout = ''): ExecResult {
  return { exitCode: 0, stdout, stderr: '' };
}
