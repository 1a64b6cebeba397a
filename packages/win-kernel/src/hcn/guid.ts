/**
 * GUIDs as HCN takes them: a 16-byte struct `{ uint32 Data1; uint16 Data2; uint16 Data3; uint8
 * Data4[8] }`, little-endian on every Windows target, written as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
 */
const GUID_RE = /^\{?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\}?$/i;

export const NIL_GUID = '00000000-0000-0000-0000-000000000000';

export function isGuid(text: string): boolean {
  return GUID_RE.test(text);
}

const CANONICAL_RE = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

/** Upper-case, no braces: the form HNS prints IDs in. */
export function canonicalGuid(text: string): string {
  if (CANONICAL_RE.test(text)) return text; // the common case: an ID HNS (or we) already printed
  const m = GUID_RE.exec(text);
  if (m === null) throw new TypeError(`not a GUID: ${JSON.stringify(text)}`);
  return m.slice(1, 6).join('-').toUpperCase();
}

export function guidToBytes(text: string): Buffer {
  const m = GUID_RE.exec(text);
  if (m === null) throw new TypeError(`not a GUID: ${JSON.stringify(text)}`);
  const [, d1, d2, d3, d4a, d4b] = m as unknown as [string, string, string, string, string, string];
  const out = Buffer.alloc(16);
  out.writeUInt32LE(parseInt(d1, 16), 0);
  out.writeUInt16LE(parseInt(d2, 16), 4);
  out.writeUInt16LE(parseInt(d3, 16), 6);
  Buffer.from(d4a + d4b, 'hex').copy(out, 8);
  return out;
}

export function guidFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new TypeError(`a GUID is 16 bytes, got ${bytes.length}`);
  const b = Buffer.from(bytes);
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const tail = b.subarray(8).toString('hex');
  return `${hex(b.readUInt32LE(0), 8)}-${hex(b.readUInt16LE(4), 4)}-${hex(b.readUInt16LE(6), 4)}-${tail.slice(0, 4)}-${tail.slice(4)}`.toUpperCase();
}
