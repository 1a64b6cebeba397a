/**
 * The in-memory kernel state of one family for FakeIptables: tables of chains of rules, each rule
 * kept as its tokens (quotes removed), with iptables' rules about chains: built-in chains cannot
 * be deleted, a user chain can be deleted only when empty and unreferenced, a rule may only jump
 * to a built-in target or an existing chain of its table.
 */
export type Rule = readonly string[];

export interface ChainState {
  readonly builtin: boolean;
  rules: Rule[];
}

export type TableState = Map<string, ChainState>;

export const BUILTIN_CHAINS: Readonly<Record<string, readonly string[]>> = {
  filter: ['INPUT', 'FORWARD', 'OUTPUT'],
  nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'],
  mangle: ['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING'],
};

const TARGETS = new Set([
  'ACCEPT',
  'DROP',
  'REJECT',
  'RETURN',
  'DNAT',
  'SNAT',
  'MASQUERADE',
  'MARK',
  'LOG',
  'CONNMARK',
]);

export class TableError extends Error {}

export function emptyTable(name: string): TableState {
  const builtins = BUILTIN_CHAINS[name];
  if (builtins === undefined) throw new TableError(`can't initialize iptables table \`${name}': Table does not exist`);
  return new Map(builtins.map((chain) => [chain, { builtin: true, rules: [] }]));
}

export function cloneTable(table: TableState): TableState {
  return new Map([...table].map(([name, chain]) => [name, { builtin: chain.builtin, rules: [...chain.rules] }]));
}

/** Splits a rule line as iptables-restore does: whitespace, double quotes grouping, `\"` escapes. */
export function tokenize(line: string): string[] {
  if (!line.includes('"')) return line.split(/\s+/).filter((t) => t !== '');
  const tokens: string[] = [];
  let current = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (ch === '\\' && quoted && line[i + 1] === '"') {
      current += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && /\s/.test(ch)) {
      if (started) tokens.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (quoted) throw new TableError('unterminated quoted string');
  if (started) tokens.push(current);
  return tokens;
}

/** The jump target of a rule (`-j X` or `-g X`), if any. */
export function targetOf(rule: Rule): string | undefined {
  for (let i = 0; i < rule.length - 1; i++) if (rule[i] === '-j' || rule[i] === '-g') return rule[i + 1];
  return undefined;
}

export function checkTarget(table: TableState, rule: Rule): void {
  const target = targetOf(rule);
  if (target === undefined || TARGETS.has(target)) return;
  if (!table.has(target)) throw new TableError(`Couldn't load target \`${target}':No such file or directory`);
}

export function references(table: TableState, chain: string): number {
  let count = 0;
  for (const state of table.values()) for (const rule of state.rules) if (targetOf(rule) === chain) count++;
  return count;
}

export function deleteChain(table: TableState, name: string): void {
  const chain = table.get(name);
  if (chain === undefined) throw new TableError(`No chain/target/match by that name.`);
  if (chain.builtin) throw new TableError(`Invalid argument: cannot delete built-in chain ${name}`);
  if (references(table, name) > 0) throw new TableError(`Too many links: chain ${name} is still referenced`);
  if (chain.rules.length > 0) throw new TableError(`Directory not empty: chain ${name} is not empty`);
  table.delete(name);
}

function quote(token: string): string {
  return token === '' || /[\s"]/.test(token) ? `"${token.replace(/"/g, '\\"')}"` : token;
}

/** `iptables-save` text of some tables. */
export function saveTables(tables: ReadonlyMap<string, TableState>, only?: string): string {
  const lines: string[] = [];
  for (const [name, table] of tables) {
    if (only !== undefined && name !== only) continue;
    lines.push(`*${name}`);
    for (const [chain, state] of table) lines.push(`:${chain} ${state.builtin ? 'ACCEPT' : '-'} [0:0]`);
    for (const [chain, state] of table)
      for (const rule of state.rules) lines.push(`-A ${chain} ${rule.map(quote).join(' ')}`);
    lines.push('COMMIT');
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
