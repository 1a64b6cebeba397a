import type { NftObject } from './objects/types.js';
import type { Verb } from './verbs.js';

/** One queued command of a transaction: a verb applied to an object. */
export interface Operation {
  readonly verb: Verb;
  readonly object: NftObject;
}
