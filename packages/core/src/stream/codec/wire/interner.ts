/**
 * Deduplicates short strings that repeat across a message (node names, zones, namespaces): a hit
 * costs a hash and a compare over the bytes instead of a native decode and a new string, which
 * matters at 100k endpoints per state. Direct-mapped and bounded, so unique strings only evict.
 */
const SLOTS = 4096;
const MAX_LENGTH = 32;

export class StringInterner {
  readonly #strings: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);

  /** The string for the UTF-8 bytes `buf[start, end)`; `decode` is called on a miss. */
  intern(buf: Buffer, start: number, end: number, decode: (buf: Buffer, start: number, end: number) => string): string {
    const length = end - start;
    if (length > MAX_LENGTH) return decode(buf, start, end);
    let hash = length;
    for (let i = start; i < end; i++) hash = (Math.imul(hash, 31) + buf[i]!) | 0;
    const slot = hash & (SLOTS - 1);
    const cached = this.#strings[slot];
    if (cached !== undefined && cached.length === length && sameAscii(cached, buf, start)) return cached;
    const s = decode(buf, start, end);
    this.#strings[slot] = s;
    return s;
  }
}

/** Only pure-ASCII strings can match (their length in UTF-16 units equals their byte length). */
function sameAscii(s: string, buf: Buffer, start: number): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== buf[start + i]) return false;
  return true;
}
