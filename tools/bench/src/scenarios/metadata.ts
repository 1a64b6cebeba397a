import { forkRandom, type Random } from '../random/prng.js';

/**
 * Server-set metadata (uid, resourceVersion, creationTimestamp, generated name suffixes), made
 * reproducible: a fixed creation time and seeded uids instead of the clock and a real random source.
 */
export interface MetadataFactory {
  uid(): string;
  nextResourceVersion(): string;
  /** A 5-character suffix like the API server's `generateName`. */
  nameSuffix(): string;
  readonly createdAt: string;
}

const HEX = '0123456789abcdef';
/** The alphabet of `k8s.io/apimachinery/pkg/util/rand.String`: no vowels, no confusable digits. */
const SUFFIX_ALPHABET = [...'bcdfghjklmnpqrstvwxz2456789'];

export function createMetadataFactory(seed: number, createdAt: string, firstResourceVersion = 1000): MetadataFactory {
  const uids = forkRandom(seed, 'uid');
  const suffixes = forkRandom(seed, 'name-suffix');
  let resourceVersion = firstResourceVersion;
  return {
    createdAt,
    uid: () => randomUuid(uids),
    nextResourceVersion: () => String(resourceVersion++),
    nameSuffix: () => Array.from({ length: 5 }, () => suffixes.pick(SUFFIX_ALPHABET)).join(''),
  };
}

/** A version-4-shaped UUID drawn from `random`. */
function randomUuid(random: Random): string {
  const hex = Array.from({ length: 32 }, () => HEX[random.int(16)]);
  hex[12] = '4';
  hex[16] = HEX[8 + random.int(4)];
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
