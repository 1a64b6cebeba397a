import type { Element, Rule } from '../objects/types.js';

/** Names a rule or element refers to, which must exist when it is added and keep their target busy. */
export interface References {
  readonly chains: readonly string[];
  readonly setsOrMaps: readonly string[];
  readonly counters: readonly string[];
}

const NAME = '[A-Za-z_][A-Za-z0-9_./-]*';
const CHAIN_TARGET = new RegExp(`\\b(?:jump|goto) (${NAME})`, 'g');
const SET_REFERENCE = new RegExp(`@(${NAME})`, 'g');
const COUNTER_REFERENCE = new RegExp(`\\bcounter name "?(${NAME})"?`, 'g');
/** `@ll`, `@nh`, `@th`, `@ih` are raw payload bases, not set references. */
const PAYLOAD_BASES = new Set(['ll', 'nh', 'th', 'ih']);

/** Rules are immutable once stored, so their references are computed once (deletes scan them all). */
const cache = new WeakMap<Rule, References>();

export function ruleReferences(rule: Rule): References {
  let references = cache.get(rule);
  if (references === undefined) {
    references = findReferences(rule);
    cache.set(rule, references);
  }
  return references;
}

function findReferences(rule: Rule): References {
  // Text inside quotes (interface names, log prefixes) holds no chain or set references.
  const unquoted = rule.rule.replace(/"[^"]*"/g, '""');
  return {
    chains: [...unquoted.matchAll(CHAIN_TARGET)].map((m) => m[1] as string),
    setsOrMaps: [...unquoted.matchAll(SET_REFERENCE)]
      .map((m) => m[1] as string)
      .filter((name) => !PAYLOAD_BASES.has(name)),
    counters: [...rule.rule.matchAll(COUNTER_REFERENCE)].map((m) => m[1] as string),
  };
}

export function elementChainReferences(element: Element): readonly string[] {
  return (element.value ?? []).flatMap((part) => [...part.matchAll(CHAIN_TARGET)].map((m) => m[1] as string));
}
