import type { Rule } from '../objects/types.js';
import type { Verb } from '../verbs.js';
import { notFound } from './rejection.js';
import { ruleReferences } from './references.js';
import type { FakeTable } from './state.js';

/**
 * Rules live in their chain in order. `index N` means "relative to the rule at position N",
 * `handle H` "relative to the rule with handle H": add goes after it, insert before it.
 */
export function applyRule(table: FakeTable, verb: Verb, rule: Rule): void {
  const chain = table.chains.get(rule.chain);
  if (chain === undefined) throw notFound(`no chain ${rule.chain}`);
  const rules = chain.rules;
  const position = anchorPosition(rules, rule);
  if (verb === 'delete' || verb === 'replace') {
    if (position === undefined) throw notFound(`${verb} rule needs an existing handle`);
    if (verb === 'delete') rules.splice(position, 1);
    else {
      checkReferences(table, rule);
      rules[position] = { ...stored(rule), handle: (rules[position] as Rule).handle as number };
    }
    return;
  }
  checkReferences(table, rule);
  const added = { ...stored(rule), handle: table.nextHandle++ };
  const anchored = rule.index !== undefined || rule.handle !== undefined;
  if (anchored && position === undefined)
    throw notFound(`no rule at ${rule.index !== undefined ? `index ${rule.index}` : `handle ${rule.handle}`}`);
  if (verb === 'add') rules.splice(position === undefined ? rules.length : position + 1, 0, added);
  else rules.splice(position ?? 0, 0, added);
}

function anchorPosition(rules: readonly Rule[], rule: Rule): number | undefined {
  if (rule.index !== undefined) return rule.index < rules.length ? rule.index : undefined;
  if (rule.handle !== undefined) {
    const position = rules.findIndex((candidate) => candidate.handle === rule.handle);
    return position < 0 ? undefined : position;
  }
  return undefined;
}

/** What the chain keeps: the rule without its positioning. */
function stored(rule: Rule): Rule {
  const { index: _index, handle: _handle, ...rest } = rule;
  return rest;
}

function checkReferences(table: FakeTable, rule: Rule): void {
  const references = ruleReferences(rule);
  const chain = references.chains.find((name) => !table.chains.has(name));
  if (chain !== undefined) throw notFound(`no chain ${chain}`);
  const set = references.setsOrMaps.find((name) => !table.sets.has(name));
  if (set !== undefined) throw notFound(`no set or map ${set}`);
  const counter = references.counters.find((name) => !table.counters.has(name));
  if (counter !== undefined) throw notFound(`no counter ${counter}`);
}
