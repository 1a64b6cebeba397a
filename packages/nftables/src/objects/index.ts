import { tokenize } from '../tokens.js';
import type { Verb } from '../verbs.js';
import { chainCodec } from './chain.js';
import type { KindCodec, RenderContext } from './codec.js';
import { counterCodec } from './counter.js';
import { elementCodec, elementContainer } from './element.js';
import { mapCodec } from './map.js';
import { ruleCodec } from './rule.js';
import { setCodec } from './set.js';
import { tableCodec } from './table.js';
import type { NftObject, ObjectKind } from './types.js';

type CodecFor<K extends ObjectKind> = KindCodec<Extract<NftObject, { kind: K }>>;

const CODECS: { readonly [K in ObjectKind]: CodecFor<K> } = {
  table: tableCodec,
  chain: chainCodec,
  rule: ruleCodec,
  set: setCodec,
  map: mapCodec,
  element: elementCodec,
  counter: counterCodec,
};

function codecOf<T extends NftObject>(object: T): KindCodec<T> {
  return CODECS[object.kind] as unknown as KindCodec<T>;
}

/** Why `verb` cannot be applied to `object`, or undefined when it can. */
export function validateObject(object: NftObject, verb: Verb): string | undefined {
  if (!(object.kind in CODECS)) return `unknown object kind ${JSON.stringify((object as { kind: unknown }).kind)}`;
  return codecOf(object).validate(object, verb);
}

/** One line of nft syntax; only meaningful for objects that passed `validateObject`. */
export function renderObject(object: NftObject, verb: Verb, ctx: RenderContext): string {
  return codecOf(object).render(object, verb, ctx);
}

/** Parses one `add <kind> …` line as written by `renderObject(object, 'add', …)`. */
export function parseAddLine(line: string): NftObject {
  const match = /^add (\S+) (.*)$/.exec(line);
  const kind = match?.[1] as ObjectKind | undefined;
  if (match === null || kind === undefined || !(kind in CODECS))
    throw new Error('expected "add <table|chain|rule|set|map|element|counter> …"');
  const rest = match[2] as string;
  return CODECS[kind].parse(kind === 'rule' ? [] : tokenize(rest), rest);
}

/** A short name for messages: `chain ip kpng services`. */
export function describeObject(object: NftObject): string {
  switch (object.kind) {
    case 'table':
      return `table ${object.family} ${object.name}`;
    case 'rule':
      return `rule in chain ${object.family} ${object.table} ${object.chain}`;
    case 'element':
      return `element ${object.key.join(' . ')} of ${object.family} ${object.table} ${elementContainer(object)}`;
    default:
      return `${object.kind} ${object.family} ${object.table} ${object.name}`;
  }
}
