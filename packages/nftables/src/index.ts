// @kpng/nftables: a generic nftables library modelled on knftables. It knows nothing of
// Kubernetes (and must not import @kpng/core): objects, transactions, the nft client and its errors.

export {
  FAMILIES,
  OBJECT_KINDS,
  tableOf,
  type Chain,
  type ChainHook,
  type ChainPolicy,
  type ChainPriority,
  type ChainType,
  type Counter,
  type Element,
  type Family,
  type NftMap,
  type NftObject,
  type NftSet,
  type ObjectKind,
  type Rule,
  type SetFlag,
  type SetPolicy,
  type Table,
} from './objects/types.js';
export { VERBS, type Verb } from './verbs.js';
export type { Operation } from './operation.js';
export { Transaction } from './transaction.js';
export { concat, type ConcatPart } from './concat.js';

export { describeObject, renderObject, validateObject } from './objects/index.js';
export { STANDARD_PRIORITIES, priorityValue } from './objects/priority.js';
export { checkComment, checkName, MAX_COMMENT_BYTES, MAX_NAME_BYTES } from './syntax.js';
export { RESERVED_WORDS } from './reserved-words.js';

export {
  isAlreadyExists,
  isNftError,
  isNotFound,
  isTimeout,
  NftError,
  type LineLayout,
  type OperationList,
  type NftErrorKind,
  type NftFailure,
} from './errors.js';
export { ShellExecer, type ShellExecerOptions } from './shell-execer.js';
export { InteractiveNftExecer, type InteractiveNftExecerOptions } from './interactive-execer.js';
export type { Capabilities } from './capabilities.js';
export type { Nft, RunOptions } from './nft.js';
export { createNftClient, NftClient, type NftClientOptions } from './client.js';

export { canonicalChain, dumpObjects, sortForDump } from './canonical.js';
export { parseDump } from './parse-dump.js';
export { parseListing } from './listing/parse-listing.js';
export {
  renderOperations,
  renderOperationsYielding,
  streamOperations,
  type RenderedTransaction,
  type StreamedTransaction,
  type TransactionLayout,
  type TransactionRenderOptions,
} from './render-transaction.js';
