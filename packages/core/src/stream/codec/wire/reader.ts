import { ErrorCodes, KpngError } from '../../../util/errors.js';
import { StringInterner } from './interner.js';
import { WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT } from './writer.js';

const interner = new StringInterner();

export function malformed(what: string): KpngError {
  return new KpngError(ErrorCodes.InvalidObject, `malformed stream message: ${what}`);
}

/**
 * A minimal protobuf reader over one buffer. Decoders loop `while (r.pos < end)` over tags and
 * skip what they do not know, so newer servers may add fields.
 */
export class ProtoReader {
  pos: number;
  readonly buf: Buffer;
  readonly end: number;

  constructor(buf: Buffer, pos = 0, end = buf.length) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
  }

  /** A varint up to 2^53 (larger values lose precision; kpng never sends them). */
  varint(): number {
    const buf = this.buf;
    if (this.pos >= this.end) throw malformed('truncated varint');
    let b = buf[this.pos++]!;
    if (b < 0x80) return b;
    let result = b & 0x7f;
    let scale = 128;
    for (let i = 1; i < 10; i++) {
      if (this.pos >= this.end) throw malformed('truncated varint');
      b = buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw malformed('varint longer than 10 bytes');
  }

  /** Checks that a nested message's fields ended exactly at its length. */
  finish(end: number): void {
    if (this.pos !== end) throw malformed('field overruns its enclosing message');
  }

  bool(): boolean {
    return this.varint() !== 0;
  }

  /** Reads a length prefix and returns where the delimited bytes end. */
  delimitedEnd(): number {
    const length = this.varint();
    const end = this.pos + length;
    if (end > this.end) throw malformed('length beyond the end of its message');
    return end;
  }

  string(): string {
    const end = this.delimitedEnd();
    const s = decodeUtf8(this.buf, this.pos, end);
    this.pos = end;
    return s;
  }

  /** A string that likely repeats within the message (node names, zones): deduplicated. */
  repeatedString(): string {
    const end = this.delimitedEnd();
    const s = interner.intern(this.buf, this.pos, end, decodeUtf8);
    this.pos = end;
    return s;
  }

  /** A packed list (or one unpacked element, which protobuf parsers must also accept). */
  uints(wireType: number, out: number[]): void {
    if (wireType !== WIRE_LEN) {
      out.push(this.varint());
      return;
    }
    const end = this.delimitedEnd();
    while (this.pos < end) out.push(this.varint());
    if (this.pos !== end) throw malformed('packed list overruns its length');
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_LEN:
        this.pos = this.delimitedEnd();
        return;
      case WIRE_I64:
        this.pos += 8;
        break;
      case WIRE_I32:
        this.pos += 4;
        break;
      default:
        throw malformed(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw malformed('truncated fixed-width field');
  }
}

/**
 * Node's native UTF-8 decoder, called directly: `Buffer#toString` adds argument normalisation that
 * costs as much as the decode itself for short strings (and a state has 300k of them at s10k).
 */
type NativeSlice = (this: Buffer, start: number, end: number) => string;
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice?: NativeSlice }).utf8Slice;

function decodeUtf8(buf: Buffer, start: number, end: number): string {
  if (start === end) return '';
  return utf8Slice ? utf8Slice.call(buf, start, end) : buf.toString('utf8', start, end);
}
