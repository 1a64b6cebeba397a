import { checkName, checkNonNegativeInteger, checkRuleText, quoted } from '../syntax.js';
import type { Verb } from '../verbs.js';
import {
  checkOptionalComment,
  checkOwner,
  firstProblem,
  parseFamily,
  unsupportedVerb,
  type KindCodec,
} from './codec.js';
import type { Rule } from './types.js';

/**
 * `destroy` is refused for rules on every host: a rule is addressed by handle, and destroy can
 * only be emulated as add-then-delete, which cannot target a handle. Delete by handle instead.
 */
const RULE_VERBS: readonly Verb[] = ['add', 'insert', 'replace', 'delete'];

function checkAddressing(rule: Rule, verb: Verb): string | undefined {
  if (rule.index !== undefined && rule.handle !== undefined) return 'a rule cannot have both an index and a handle';
  const problem = firstProblem(
    rule.index === undefined ? undefined : checkNonNegativeInteger('rule index', rule.index),
    rule.handle === undefined ? undefined : checkNonNegativeInteger('rule handle', rule.handle),
  );
  if (problem !== undefined) return problem;
  if ((verb === 'replace' || verb === 'delete') && rule.handle === undefined) return `${verb} rule needs a handle`;
  if (verb === 'replace' && rule.index !== undefined) return 'replace rule takes a handle, not an index';
  return undefined;
}

export const ruleCodec: KindCodec<Rule> = {
  validate(rule, verb) {
    return (
      unsupportedVerb(verb, 'rule', RULE_VERBS) ??
      checkOwner(rule) ??
      checkName('chain', rule.chain) ??
      checkAddressing(rule, verb) ??
      (verb === 'delete' ? undefined : checkRuleText(rule.rule)) ??
      checkOptionalComment(rule.comment)
    );
  },

  render(rule, verb) {
    let line = `${verb} rule ${rule.family} ${rule.table} ${rule.chain}`;
    if (rule.index !== undefined) line += ` index ${rule.index}`;
    else if (rule.handle !== undefined) line += ` handle ${rule.handle}`;
    if (verb === 'delete') return line;
    line += ` ${rule.rule}`;
    return rule.comment === undefined ? line : `${line} comment ${quoted(rule.comment)}`;
  },

  parse(_tokens, text) {
    const match = /^(\S+) (\S+) (\S+)(?: (index|handle) (\d+))? (.+?)(?: comment "([^"]*)")?$/.exec(text);
    if (match === null) throw new Error('expected FAMILY TABLE CHAIN [index N|handle N] RULE [comment "…"]');
    const [, family, table, chain, position, number, ruleText, comment] = match;
    return {
      kind: 'rule',
      family: parseFamily(family),
      table: table as string,
      chain: chain as string,
      rule: ruleText as string,
      ...(position === 'index' ? { index: Number(number) } : {}),
      ...(position === 'handle' ? { handle: Number(number) } : {}),
      ...(comment === undefined ? {} : { comment }),
    };
  },
};
