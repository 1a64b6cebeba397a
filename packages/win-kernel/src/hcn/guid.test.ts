import { describe, expect, it } from 'vitest';
import { canonicalGuid, guidFromBytes, guidToBytes } from './guid.js';

describe('GUID marshalling', () => {
  it('lays Data1..Data3 out little-endian and Data4 as bytes', () => {
    const bytes = guidToBytes('00112233-4455-6677-8899-aabbccddeeff');
    expect(bytes.toString('hex')).toBe('33221100554477668899aabbccddeeff');
    expect(guidFromBytes(bytes)).toBe('00112233-4455-6677-8899-AABBCCDDEEFF');
  });
  it('accepts braces and lower case, refuses anything else', () => {
    expect(canonicalGuid('{0a0b0c0d-0000-4000-8000-00000000000f}')).toBe('0A0B0C0D-0000-4000-8000-00000000000F');
    expect(() => guidToBytes('not-a-guid')).toThrow(/not a GUID/);
    expect(() => guidFromBytes(new Uint8Array(15))).toThrow(/16 bytes/);
  });
});
