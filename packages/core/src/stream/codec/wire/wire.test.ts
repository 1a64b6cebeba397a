import { describe, expect, it } from 'vitest';
import { StringInterner } from './interner.js';
import { ProtoReader } from './reader.js';
import { ProtoWriter, WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT, varintSize } from './writer.js';

describe('protobuf wire writer and reader', () => {
  it('round-trips varints across byte boundaries up to 2^53-1', () => {
    const values = [
      0,
      1,
      127,
      128,
      16383,
      16384,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 35 + 3,
      Number.MAX_SAFE_INTEGER,
    ];
    const w = new ProtoWriter(1);
    for (const v of values) w.varint(v);
    const r = new ProtoReader(w.finish());
    expect(values.map(() => r.varint())).toEqual(values);
    expect(values.map(varintSize)).toEqual([1, 1, 1, 2, 2, 3, 5, 5, 5, 5, 6, 8]);
  });

  it('round-trips short, long and non-ASCII strings like Buffer does', () => {
    const strings = [
      '',
      'a',
      '198.18.0.1',
      'x'.repeat(42),
      'y'.repeat(43),
      'é'.repeat(42),
      '😀'.repeat(21),
      'z'.repeat(300),
      '\ud800 lone',
    ];
    const w = new ProtoWriter(1);
    for (const s of strings) w.stringAlways(1, s);
    const buf = w.finish();
    const r = new ProtoReader(buf);
    const back = strings.map(() => (r.varint(), r.string()));
    expect(back).toEqual(strings.map((s) => Buffer.from(s, 'utf8').toString('utf8')));
  });

  it('patches nested lengths of one, two and three bytes', () => {
    for (const size of [10, 200, 20_000]) {
      const w = new ProtoWriter(4);
      const outer = w.fork(1);
      const inner = w.fork(2);
      w.stringAlways(3, 'q'.repeat(size));
      w.join(inner);
      w.join(outer);
      w.uint(4, 99);
      const r = new ProtoReader(w.finish());
      expect(r.varint()).toBe((1 << 3) | WIRE_LEN);
      const outerEnd = r.delimitedEnd();
      expect(r.varint()).toBe((2 << 3) | WIRE_LEN);
      expect(r.delimitedEnd()).toBe(outerEnd);
      expect(r.varint()).toBe((3 << 3) | WIRE_LEN);
      expect(r.string()).toHaveLength(size);
      expect(r.pos).toBe(outerEnd);
      expect([r.varint(), r.varint()]).toEqual([(4 << 3) | WIRE_VARINT, 99]);
    }
  });

  it('reads packed and unpacked repeated numbers', () => {
    const w = new ProtoWriter();
    w.packed(1, [3, 300, 0]);
    w.uint(1, 7); // one unpacked element
    const r = new ProtoReader(w.finish());
    const out: number[] = [];
    while (r.pos < r.end) {
      const tag = r.varint();
      r.uints(tag & 7, out);
    }
    expect(out).toEqual([3, 300, 0, 7]);
  });

  it('skips unknown fields of every wire type', () => {
    const w = new ProtoWriter();
    w.uint(1, 5);
    w.tag(2, WIRE_I64);
    w.varint(0); // 8 raw bytes follow; write them as varints of 0
    for (let i = 0; i < 7; i++) w.varint(0);
    w.tag(3, WIRE_I32);
    for (let i = 0; i < 4; i++) w.varint(0);
    w.stringAlways(4, 'skipped');
    w.uint(5, 42);
    const r = new ProtoReader(w.finish());
    let found = 0;
    while (r.pos < r.end) {
      const tag = r.varint();
      if (tag >>> 3 === 5) found = r.varint();
      else r.skip(tag & 7);
    }
    expect(found).toBe(42);
  });

  it('rejects truncated input and lengths beyond the message', () => {
    expect(() => new ProtoReader(Buffer.from([0x80, 0x80])).varint()).toThrow(/truncated varint/);
    expect(() => new ProtoReader(Buffer.from([0x05, 0x61])).string()).toThrow(/beyond the end/);
    expect(() => new ProtoReader(Buffer.from([0x01])).skip(WIRE_I64)).toThrow(/truncated/);
    expect(() => new ProtoReader(Buffer.from([0x01])).skip(3)).toThrow(/wire type 3/);
  });
});

describe('StringInterner', () => {
  const decode = (b: Buffer, s: number, e: number) => b.toString('utf8', s, e);

  it('returns the same string for repeated bytes and the right string for every input', () => {
    const interner = new StringInterner();
    const words = ['node-1', 'node-2', 'zone-a', 'node-1', 'zöne', 'zöne', '', 'x'.repeat(40)];
    const buf = Buffer.from(words.join(''));
    let pos = 0;
    const out = words.map((w) => {
      const end = pos + Buffer.byteLength(w);
      const s = interner.intern(buf, pos, end, decode);
      pos = end;
      return s;
    });
    expect(out).toEqual(words);
  });

  it('never confuses two strings that share a slot', () => {
    const interner = new StringInterner();
    const seen = new Map<string, string>();
    for (let i = 0; i < 20_000; i++) {
      const word = `n${i % 7000}`;
      const b = Buffer.from(word);
      const s = interner.intern(b, 0, b.length, decode);
      expect(s).toBe(word);
      seen.set(word, s);
    }
    expect(seen.size).toBe(7000);
  });
});
