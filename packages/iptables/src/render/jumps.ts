/**
 * The jumps from built-in chains that a fresh restore must insert: those missing from the
 * `iptables-save` dumps of filter and nat (compared token by token, as iptables-save prints rules
 * in the order their matches were given), written as `-I` lines of the restore itself.
 */
import type { JumpRule, Table } from './skeleton.js';

function tokens(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line))
    out.push(m[1] !== undefined ? m[1].replace(/\\"/g, '"') : (m[2] as string));
  return out;
}

/** The chain of a dump's `-A CHAIN args...` line, read without tokenizing the line. */
export function savedRuleChain(line: string): string {
  const space = line.indexOf(' ', 3);
  return line.slice(3, space < 0 ? undefined : space);
}

/**
 * `-A CHAIN args...` lines of a dump as token lists; with `chains`, only those chains' lines (a
 * 10k-Service nat dump holds ~300,000 rules, and only the built-in chains' jumps are compared).
 */
export function savedRules(dump: string, chains?: ReadonlySet<string>): string[][] {
  return dump
    .split('\n')
    .filter((line) => line.startsWith('-A ') && (chains === undefined || chains.has(savedRuleChain(line))))
    .map(tokens);
}

export function missingJumps(
  rules: readonly JumpRule[],
  saved: Readonly<Partial<Record<Table, readonly string[][]>>>,
): JumpRule[] {
  return rules.filter((rule) => {
    const want = ['-A', rule.from, ...rule.args];
    return !(saved[rule.table] ?? []).some(
      (have) => have.length === want.length && have.every((t, i) => t === want[i]),
    );
  });
}

/** The restore line inserting a jump at the top of its built-in chain. */
export function insertLine(rule: JumpRule): string {
  return ['-I', rule.from, ...rule.args.map((a) => (/\s/.test(a) ? `"${a}"` : a))].join(' ');
}

export { tokens as splitSavedRule };
