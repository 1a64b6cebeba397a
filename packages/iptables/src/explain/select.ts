/**
 * What belongs to one Service in an `iptables-save -c` dump, by kube-proxy's naming as this
 * backend renders it (render/names.ts, render/comment.ts): every rule whose comment starts with
 * `NAMESPACE/NAME` (then `:`, a space or the end), and every rule of a per-Service chain
 * (`KUBE-SVC/SVL/EXT/FW/SEP-…`) such a rule jumps to, transitively. Reads text; renders nothing.
 */
import type { ExplainLine, ExplainSection, ServiceRef } from '@kpng/core';
import { SERVICE_CHAIN } from '../render/names.js';

interface SavedRule {
  readonly table: string;
  readonly chain: string;
  /** The rule as `-A CHAIN ...`, without its counters. */
  readonly text: string;
  readonly packets?: number;
  readonly bytes?: number;
  readonly comment?: string;
  readonly target?: string;
}

const RULE = /^(?:\[(\d+):(\d+)\] )?(-A (\S+) .*)$/;
const COMMENT = /--comment (?:"((?:[^"\\]|\\.)*)"|(\S+))/;
const TARGET = /(?:^| )-[jg] (\S+)/;

function parseSave(save: string): SavedRule[] {
  const rules: SavedRule[] = [];
  let table = '';
  for (const line of save.split('\n')) {
    if (line.startsWith('*')) {
      table = line.slice(1).trim();
      continue;
    }
    const m = RULE.exec(line);
    if (m === null) continue;
    const text = m[3]!;
    const c = COMMENT.exec(text);
    const t = TARGET.exec(text);
    rules.push({
      table,
      chain: m[4]!,
      text,
      ...(m[1] === undefined ? {} : { packets: Number(m[1]), bytes: Number(m[2]) }),
      ...(c === null ? {} : { comment: c[1] ?? c[2] }),
      ...(t === null ? {} : { target: t[1] }),
    });
  }
  return rules;
}

function belongs(comment: string | undefined, key: string): boolean {
  if (comment === undefined || !comment.startsWith(key)) return false;
  const next = comment.charAt(key.length);
  return next === '' || next === ':' || next === ' ';
}

const line = (r: SavedRule): ExplainLine => ({
  text: r.text,
  ...(r.packets === undefined ? {} : { packets: r.packets, bytes: r.bytes ?? 0 }),
});

/**
 * One Service's rules in a dump, grouped: its entry points in the shared chains, then each of its
 * own chains (service chains before endpoint chains), each titled `table chain`. Empty when the
 * dump holds nothing of it.
 */
export function selectServiceRules(save: string, service: ServiceRef): ExplainSection[] {
  const key = `${service.namespace}/${service.name}`;
  const rules = parseSave(save);
  const own = new Set<string>(); // `table chain` of per-Service chains reached
  const entries: SavedRule[] = [];
  const reach = (r: SavedRule): void => {
    if (r.target !== undefined && SERVICE_CHAIN.test(r.target)) own.add(`${r.table} ${r.target}`);
  };
  for (const r of rules) {
    if (!belongs(r.comment, key)) continue;
    if (SERVICE_CHAIN.test(r.chain)) own.add(`${r.table} ${r.chain}`);
    else entries.push(r);
    reach(r);
  }
  // Chains reached from chains reached (SVC -> SEP, EXT -> SVC, FW -> EXT), to a fixed point.
  for (let size = -1; size !== own.size;) {
    size = own.size;
    for (const r of rules) if (own.has(`${r.table} ${r.chain}`)) reach(r);
  }
  const sections: ExplainSection[] = [];
  if (entries.length > 0) sections.push({ title: 'service entry points', lines: entries.map(line) });
  const chains = [...own].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const chain of chains) {
    const lines = rules.filter((r) => `${r.table} ${r.chain}` === chain).map(line);
    const kind = / KUBE-SEP-/.test(chain) ? 'endpoint chain' : 'service chain';
    sections.push({ title: `${kind} ${chain}`, lines });
  }
  return sections;
}

const rank = (chain: string): number => (/ KUBE-SEP-/.test(chain) ? 1 : 0);
