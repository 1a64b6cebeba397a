/**
 * A minimal protobuf writer for kpng's own messages. Hand-written rather than generated because
 * the full-state stream is throughput-bound (10k Services per message): no intermediate objects,
 * one growable buffer, nested lengths patched in place.
 */
export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

/** Bytes a varint of `n` takes (n a non-negative integer below 2^53). */
export function varintSize(n: number): number {
  let size = 1;
  while (n > 0x7f) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Writes `n` (non-negative integer below 2^53) as a varint at `pos`; returns the position after it. */
export function putVarint(buf: Uint8Array, pos: number, n: number): number {
  while (n > 0x7f) {
    buf[pos++] = (n & 0x7f) | 0x80;
    n = n > 0xffffffff ? Math.floor(n / 128) : n >>> 7;
  }
  buf[pos++] = n;
  return pos;
}

/** A string of this many UTF-16 units or fewer fits in 127 UTF-8 bytes: a one-byte length prefix. */
const SHORT_STRING = 42;

export class ProtoWriter {
  #buf: Buffer;
  pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.#buf = Buffer.allocUnsafe(initialSize);
  }

  reset(): void {
    this.pos = 0;
  }

  /** A copy of what was written since the last reset. */
  finish(): Buffer {
    const out = Buffer.allocUnsafe(this.pos); // small results come from Node's shared pool
    this.#buf.copy(out, 0, 0, this.pos);
    return out;
  }

  /** Writes the bytes directly into `target` at `offset` (no intermediate copy). */
  copyTo(target: Uint8Array, offset: number): number {
    target.set(this.#buf.subarray(0, this.pos), offset);
    return offset + this.pos;
  }

  #room(n: number): Buffer {
    if (this.pos + n > this.#buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.pos + n));
      this.#buf.copy(bigger, 0, 0, this.pos);
      this.#buf = bigger;
    }
    return this.#buf;
  }

  varint(n: number): void {
    this.pos = putVarint(this.#room(10), this.pos, n);
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** proto3 implicit presence: zero is not written. */
  uint(field: number, n: number): void {
    if (n !== 0) {
      this.tag(field, WIRE_VARINT);
      this.varint(n);
    }
  }

  bool(field: number, v: boolean): void {
    if (v) {
      this.tag(field, WIRE_VARINT);
      this.#room(1)[this.pos++] = 1;
    }
  }

  /** proto3 implicit presence: "" is not written. */
  string(field: number, s: string): void {
    if (s.length !== 0) this.stringAlways(field, s);
  }

  /** For `optional` and repeated strings: written even when empty. */
  stringAlways(field: number, s: string): void {
    this.tag(field, WIRE_LEN);
    if (s.length <= SHORT_STRING) {
      const buf = this.#room(1 + s.length * 3);
      const lengthAt = this.pos;
      this.pos = writeUtf8(buf, lengthAt + 1, s);
      buf[lengthAt] = this.pos - lengthAt - 1;
    } else {
      const n = Buffer.byteLength(s, 'utf8');
      this.varint(n);
      this.#room(n).write(s, this.pos, n, 'utf8');
      this.pos += n;
    }
  }

  strings(field: number, list: readonly string[]): void {
    for (const s of list) this.stringAlways(field, s);
  }

  bytes(field: number, bytes: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.varint(bytes.length);
    this.#room(bytes.length).set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Opens a nested message (or packed list); returns the mark `join` needs. */
  fork(field: number): number {
    this.tag(field, WIRE_LEN);
    this.#room(1);
    return this.pos++;
  }

  /** Closes a nested message: writes its length, moving the content when it needs more than one byte. */
  join(mark: number): void {
    const length = this.pos - mark - 1;
    if (length < 0x80) {
      this.#buf[mark] = length;
      return;
    }
    const extra = varintSize(length) - 1;
    const buf = this.#room(extra);
    buf.copyWithin(mark + 1 + extra, mark + 1, this.pos);
    putVarint(buf, mark, length);
    this.pos += extra;
  }

  /** A packed `repeated uint32`/`int64` (non-negative values); nothing when empty. */
  packed(field: number, values: ArrayLike<number>): void {
    if (values.length === 0) return;
    const mark = this.fork(field);
    for (let i = 0; i < values.length; i++) this.varint(values[i]!);
    this.join(mark);
  }
}

/** UTF-8 encode `s` at `pos` (room checked by the caller); returns the position after it. */
function writeUtf8(buf: Buffer, pos: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      buf[pos++] = c;
    } else if (c < 0x800) {
      buf[pos++] = 0xc0 | (c >> 6);
      buf[pos++] = 0x80 | (c & 0x3f);
    } else {
      const next = s.charCodeAt(i + 1);
      if (c >= 0xd800 && c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        buf[pos++] = 0xf0 | (c >> 18);
        buf[pos++] = 0x80 | ((c >> 12) & 0x3f);
      } else {
        if (c >= 0xd800 && c < 0xe000) c = 0xfffd; // lone surrogate, as Buffer.write does
        buf[pos++] = 0xe0 | (c >> 12);
      }
      buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
      buf[pos++] = 0x80 | (c & 0x3f);
    }
  }
  return pos;
}
