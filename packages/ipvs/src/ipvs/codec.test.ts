// The IPVS netlink encoder writes only what passes core's render-value validators: a property test
// over valid virtual and real servers (they encode and decode back to themselves) and over the same
// with one field made hostile (the encoder throws IpvsEncodeError and builds no message).
import { formatIP, isCanonicalIP } from '@kpng/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAttributes } from '../netlink/attributes.js';
import { decodeDest, decodeService, destFull, destId, IpvsEncodeError, serviceFull, serviceId } from './codec.js';
import type { RealServer, VirtualServer } from './types.js';

const RUNS = 300;

const ipv4 = fc
  .array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 })
  .map((bytes) => formatIP({ family: 'IPv4', bytes }));
const ipv6 = fc
  .array(fc.integer({ min: 0, max: 255 }), { minLength: 16, maxLength: 16 })
  .filter((bytes) => !(bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff))
  .map((bytes) => formatIP({ family: 'IPv6', bytes }));

const virtualServer: fc.Arbitrary<VirtualServer> = fc
  .oneof(
    fc.record({ family: fc.constant('IPv4' as const), address: ipv4 }),
    fc.record({ family: fc.constant('IPv6' as const), address: ipv6 }),
  )
  .chain(({ family, address }) =>
    fc.record({
      family: fc.constant(family),
      address: fc.constant(address),
      protocol: fc.constantFrom('TCP' as const, 'UDP' as const, 'SCTP' as const),
      port: fc.integer({ min: 1, max: 65535 }),
      scheduler: fc.constantFrom('rr', 'wrr', 'lc', 'sh', 'mh'),
      persistentSeconds: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 86400 })),
    }),
  );

/** Text a hostile or broken source could put in an address field. */
const hostileText = fc.oneof(
  fc.string(),
  fc.constantFrom('198.19.0.1\n', ' 198.19.0.1', '198.019.0.1', '2001:DB8::1', '::ffff:198.19.0.1', '1.2.3.4/32', ''),
  fc.tuple(ipv4, fc.string({ minLength: 1 })).map(([ip, tail]) => ip + tail),
);

/** One field of a valid virtual server made invalid (field 4, the scheduler, is only in the full entry). */
const hostileVirtualServer: fc.Arbitrary<[VirtualServer, number]> = fc
  .tuple(virtualServer, fc.nat(5), hostileText, fc.oneof(fc.integer(), fc.double()))
  .map(([vs, field, text, number]): [VirtualServer, number] => [hostile(vs, field, text, number), field]);

function hostile(vs: VirtualServer, field: number, text: string, number: number): VirtualServer {
  switch (field) {
    case 0:
      return { ...vs, address: text };
    case 1:
      // The other family's address.
      return { ...vs, address: vs.family === 'IPv4' ? '2001:db8::1' : '198.19.0.1' };
    case 2:
      return { ...vs, port: Number.isInteger(number) && number >= 1 && number <= 65535 ? 0 : number };
    case 3:
      return { ...vs, protocol: text as VirtualServer['protocol'] };
    case 4:
      return { ...vs, scheduler: `${text} x` };
    default:
      return { ...vs, family: `${text}6` as VirtualServer['family'] };
  }
}

describe('IPVS netlink encoder', () => {
  it('valid virtual and real servers encode and decode back to themselves', () => {
    let cases = 0;
    fc.assert(
      fc.property(virtualServer, virtualServer, fc.integer({ min: 0, max: 65535 }), (vs, other, weight) => {
        cases++;
        const decoded = decodeService(decodeAttributes(Buffer.from(encoded(serviceFull(vs)))));
        expect(decoded).toEqual(vs);
        const rs: RealServer = {
          address: vs.family === other.family ? other.address : vs.address,
          port: other.port,
          weight,
        };
        const dest = decodeDest(vs.family, decodeAttributes(Buffer.from(encoded(destFull(vs, rs)))));
        expect(dest).toMatchObject(rs);
      }),
      { numRuns: RUNS },
    );
    console.log(`IPVS encoder round trip: ${cases} cases`);
  });

  it('a virtual server or real server with any field that fails validation is refused', () => {
    let cases = 0;
    fc.assert(
      fc.property(hostileVirtualServer, hostileText, ([vs, field], address) => {
        cases++;
        if (field !== 4) expect(() => serviceId(vs)).toThrow(IpvsEncodeError);
        expect(() => serviceFull(vs)).toThrow(IpvsEncodeError);
        if (!isCanonicalIP(address)) expect(() => destId({ address, port: 80 })).toThrow(IpvsEncodeError);
      }),
      { numRuns: RUNS },
    );
    console.log(`IPVS encoder refusals: ${cases} cases`);
  });
});

/** A nested attribute as the top-level attribute list the decoder reads. */
function encoded([type, payload]: readonly [number, Buffer]): Buffer {
  const out = Buffer.alloc(4 + payload.length + ((4 - ((4 + payload.length) % 4)) % 4));
  out.writeUInt16LE(4 + payload.length, 0);
  out.writeUInt16LE(type, 2);
  payload.copy(out, 4);
  return out;
}
