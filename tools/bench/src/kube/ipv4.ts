/** IPv4 addresses as unsigned 32-bit integers: the address plan is arithmetic on these. */

export function ipv4ToInt(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4) throw new Error(`not an IPv4 address: ${text}`);
  let value = 0;
  for (const part of parts) {
    const octet = Number(part);
    if (!/^\d{1,3}$/.test(part) || octet > 255) throw new Error(`not an IPv4 address: ${text}`);
    value = value * 256 + octet;
  }
  return value;
}

export function intToIpv4(value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new RangeError(`not an IPv4 integer: ${value}`);
  return `${(value >>> 24) & 255}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

export interface Cidr {
  /** The network address as an integer. */
  readonly base: number;
  readonly prefix: number;
}

export function parseCidr(text: string): Cidr {
  const [ip, bits, extra] = text.split('/');
  const prefix = Number(bits);
  if (ip === undefined || extra !== undefined || !/^\d{1,2}$/.test(bits ?? '') || prefix > 32) {
    throw new Error(`not an IPv4 CIDR: ${text}`);
  }
  const size = 2 ** (32 - prefix);
  const base = ipv4ToInt(ip);
  if (base % size !== 0) throw new Error(`CIDR has host bits set: ${text}`);
  return { base, prefix };
}

export function cidrSize(cidr: Cidr): number {
  return 2 ** (32 - cidr.prefix);
}

export function formatCidr(cidr: Cidr): string {
  return `${intToIpv4(cidr.base)}/${cidr.prefix}`;
}

export function cidrContains(cidr: Cidr, address: string): boolean {
  const value = ipv4ToInt(address);
  return value >= cidr.base && value < cidr.base + cidrSize(cidr);
}
