/**
 * iptables-restore's semantics, in memory: `*table` ... `COMMIT` blocks applied in order, each
 * table committed at its COMMIT (a failure later in the input leaves earlier tables committed, as
 * iptables-legacy does); without `--noflush` a table's chains are flushed and its user chains
 * deleted first; with it, `:CHAIN` creates or flushes one chain. `--test` commits nothing.
 */
import { checkTarget, cloneTable, deleteChain, emptyTable, TableError, tokenize, type TableState } from './tables.js';

export interface RestoreOptions {
  readonly noflush: boolean;
  readonly test: boolean;
}

/** Applies `input` to `tables`; throws `line N failed` style errors (tables stay as committed so far). */
export function applyRestore(tables: Map<string, TableState>, input: string, options: RestoreOptions): void {
  let name: string | undefined;
  let work: TableState | undefined;
  const lines = input.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    const fail = (message: string): never => {
      throw new TableError(`${message}\nError occurred at line: ${i + 1}`);
    };
    try {
      if (line === '' || line.startsWith('#')) continue;
      if (line.startsWith('*')) {
        if (work !== undefined) fail(`table ${name} not committed`);
        name = line.slice(1);
        work = cloneTable(tables.get(name) ?? emptyTable(name));
        if (!options.noflush) {
          for (const [chain, state] of [...work])
            if (state.builtin) state.rules = [];
            else work.delete(chain);
        }
        continue;
      }
      if (work === undefined || name === undefined) fail('no table specified');
      const table = work as TableState;
      if (line === 'COMMIT') {
        if (!options.test) tables.set(name as string, table);
        work = undefined;
        continue;
      }
      if (line.startsWith(':')) {
        const [chain, policy] = line.slice(1).split(/\s+/);
        if (chain === undefined || chain === '' || chain.length > 28 || policy === undefined) fail(`bad chain line`);
        const existing = table.get(chain as string);
        if (existing === undefined) {
          if (policy !== '-') fail(`cannot set policy of user chain ${chain}`);
          table.set(chain as string, { builtin: false, rules: [] });
        } else if (!existing.builtin) {
          existing.rules = [];
        }
        continue;
      }
      const tokens = tokenize(line);
      const [verb, chain, ...rule] = tokens;
      const state = chain === undefined ? undefined : table.get(chain);
      switch (verb) {
        case '-A':
        case '-I':
          if (state === undefined) fail(`Couldn't load chain ${chain}`);
          checkTarget(table, rule);
          if (verb === '-A') state!.rules.push(rule);
          else state!.rules.unshift(rule);
          break;
        case '-X':
          deleteChain(table, chain as string);
          break;
        case '-F':
          if (state === undefined) fail(`No chain ${chain}`);
          state!.rules = [];
          break;
        case '-N':
          if (state !== undefined) fail(`Chain ${chain} already exists`);
          table.set(chain as string, { builtin: false, rules: [] });
          break;
        default:
          fail(`unknown command ${verb}`);
      }
    } catch (e) {
      if (e instanceof TableError && /Error occurred at line/.test(e.message)) throw e;
      fail(e instanceof Error ? e.message : String(e));
    }
  }
  if (work !== undefined)
    throw new TableError(`COMMIT expected at line ${lines.length + 1}\nError occurred at line: ${lines.length}`);
}
