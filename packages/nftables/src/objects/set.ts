import type { KindCodec } from './codec.js';
import { parseSetLike, renderSetLike, validateSetLike } from './set-like.js';
import type { NftSet } from './types.js';

export const setCodec: KindCodec<NftSet> = {
  validate: validateSetLike,
  render: renderSetLike,
  parse: (tokens) => parseSetLike('set', tokens),
};
