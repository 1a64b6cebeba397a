import type { KindCodec } from './codec.js';
import { parseSetLike, renderSetLike, validateSetLike } from './set-like.js';
import type { NftMap } from './types.js';

export const mapCodec: KindCodec<NftMap> = {
  validate: validateSetLike,
  render: renderSetLike,
  parse: (tokens) => parseSetLike('map', tokens),
};
