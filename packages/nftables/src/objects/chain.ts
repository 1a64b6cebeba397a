import { checkDevice, checkName, quoted } from '../syntax.js';
import { blockStatements, unquote } from '../tokens.js';
import type { Verb } from '../verbs.js';
import {
  block,
  checkOptionalComment,
  checkOwner,
  firstProblem,
  objectCommentProperty,
  parseFamily,
  requireToken,
  unsupportedVerb,
  type KindCodec,
} from './codec.js';
import { priorityValue } from './priority.js';
import type { Chain, ChainHook, ChainPolicy, ChainType } from './types.js';

const CHAIN_VERBS: readonly Verb[] = ['add', 'create', 'delete', 'destroy', 'flush'];
const TYPES: readonly ChainType[] = ['filter', 'nat', 'route'];
const HOOKS: readonly ChainHook[] = ['prerouting', 'input', 'forward', 'output', 'postrouting', 'ingress', 'egress'];
const POLICIES: readonly ChainPolicy[] = ['accept', 'drop'];
const DEVICE_HOOKS: readonly ChainHook[] = ['ingress', 'egress'];

export function isBaseChain(chain: Chain): boolean {
  return chain.hook !== undefined;
}

function checkBaseProperties(chain: Chain): string | undefined {
  const { type, hook, priority, policy, device } = chain;
  if (hook === undefined) {
    if (type !== undefined || priority !== undefined)
      return `regular chain ${chain.name} must not have a type or priority`;
    if (policy !== undefined || device !== undefined)
      return `regular chain ${chain.name} must not have a policy or device`;
    return undefined;
  }
  if (type === undefined || priority === undefined) return `base chain ${chain.name} needs a type, hook and priority`;
  if (!TYPES.includes(type)) return `unknown chain type ${JSON.stringify(type)}`;
  if (!HOOKS.includes(hook)) return `unknown hook ${JSON.stringify(hook)}`;
  if (priorityValue(priority) === undefined) return `invalid priority ${JSON.stringify(priority)}`;
  if (policy !== undefined && !POLICIES.includes(policy)) return `unknown policy ${JSON.stringify(policy)}`;
  if (DEVICE_HOOKS.includes(hook) !== (device !== undefined))
    return `a device is required with, and only with, the ingress and egress hooks`;
  return device === undefined ? undefined : checkDevice(device);
}

export const chainCodec: KindCodec<Chain> = {
  validate(chain, verb) {
    return firstProblem(
      unsupportedVerb(verb, 'chain', CHAIN_VERBS),
      checkOwner(chain),
      checkName('chain', chain.name),
      checkBaseProperties(chain),
      checkOptionalComment(chain.comment),
    );
  },

  render(chain, verb, ctx) {
    const head = `${verb} chain ${chain.family} ${chain.table} ${chain.name}`;
    if (verb !== 'add' && verb !== 'create') return head;
    const properties: string[] = [];
    if (chain.hook !== undefined && chain.type !== undefined && chain.priority !== undefined) {
      const device = chain.device === undefined ? '' : ` device ${quoted(chain.device)}`;
      properties.push(`type ${chain.type} hook ${chain.hook}${device} priority ${priorityValue(chain.priority)} ;`);
      if (chain.policy !== undefined) properties.push(`policy ${chain.policy} ;`);
    }
    properties.push(...objectCommentProperty(chain.comment, ctx));
    return head + block(properties);
  },

  parse(tokens) {
    const chain: Chain = {
      kind: 'chain',
      family: parseFamily(tokens[0]),
      table: requireToken(tokens, 1, 'table name'),
      name: requireToken(tokens, 2, 'chain name'),
    };
    return tokens[3] === '{' ? withChainStatements(chain, blockStatements(tokens, 3).statements) : chain;
  },
};

/** Applies `type … hook … priority …`, `policy …` and `comment …` statements (dumps and listings). */
export function withChainStatements(chain: Chain, statements: readonly (readonly string[])[]): Chain {
  let result: Chain = chain;
  for (const statement of statements) {
    switch (statement[0]) {
      case 'type': {
        const hookAt = statement.indexOf('hook');
        const priorityAt = statement.indexOf('priority');
        const deviceAt = statement.indexOf('device');
        const priorityText = statement.slice(priorityAt + 1).join(' ');
        result = {
          ...result,
          type: requireToken(statement, 1, 'chain type') as ChainType,
          hook: requireToken(statement, hookAt + 1, 'hook') as ChainHook,
          priority: priorityValue(priorityText) ?? priorityText,
          ...(deviceAt < 0 ? {} : { device: unquote(requireToken(statement, deviceAt + 1, 'device')) }),
        };
        break;
      }
      case 'policy':
        result = { ...result, policy: requireToken(statement, 1, 'policy') as ChainPolicy };
        break;
      case 'comment':
        result = { ...result, comment: unquote(requireToken(statement, 1, 'comment')) };
        break;
      default:
        throw new Error(`unknown chain property ${JSON.stringify(statement[0])}`);
    }
  }
  return result;
}
