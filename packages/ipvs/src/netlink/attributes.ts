/**
 * Netlink attributes (`struct nlattr`: u16 length, u16 type, payload padded to 4 bytes), host byte
 * order except where the kernel says network order (ports, IPv4 netmasks).
 */
export const NLA_F_NESTED = 0x8000;
const TYPE_MASK = 0x3fff;

export type Attribute = readonly [type: number, payload: Buffer];

export function align4(n: number): number {
  return (n + 3) & ~3;
}

export function encodeAttributes(attributes: readonly Attribute[]): Buffer {
  return Buffer.concat(attributes.map(([type, payload]) => encodeAttribute(type, payload)));
}

export function encodeAttribute(type: number, payload: Buffer): Buffer {
  const out = Buffer.alloc(align4(4 + payload.length));
  out.writeUInt16LE(4 + payload.length, 0);
  out.writeUInt16LE(type, 2);
  payload.copy(out, 4);
  return out;
}

export function nested(type: number, attributes: readonly Attribute[]): Attribute {
  return [type | NLA_F_NESTED, encodeAttributes(attributes)];
}

/** Attributes by type (the last one wins, as `nla_parse` does). */
export function decodeAttributes(buf: Buffer): Map<number, Buffer> {
  const out = new Map<number, Buffer>();
  let offset = 0;
  while (offset + 4 <= buf.length) {
    const length = buf.readUInt16LE(offset);
    if (length < 4 || offset + length > buf.length) break;
    out.set(buf.readUInt16LE(offset + 2) & TYPE_MASK, buf.subarray(offset + 4, offset + length));
    offset += align4(length);
  }
  return out;
}

export const u16 = (value: number): Buffer => le(2, value);
export const u32 = (value: number): Buffer => le(4, value);
export const be16 = (value: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
};
export const cString = (value: string): Buffer => Buffer.from(`${value}\0`);

function le(size: 2 | 4, value: number): Buffer {
  const b = Buffer.alloc(size);
  if (size === 2) b.writeUInt16LE(value);
  else b.writeUInt32LE(value >>> 0);
  return b;
}

export function readCString(buf: Buffer | undefined): string | undefined {
  if (buf === undefined) return undefined;
  const end = buf.indexOf(0);
  return buf.subarray(0, end < 0 ? buf.length : end).toString();
}
