import { networkInterfaces } from 'node:os';
import { canonicalIP } from '@kpng/core';
import { dashedMac } from '../render/network.js';

/** The MAC of the interface that holds `ip` (upstream's host MAC lookup), dashed as HNS writes it. */
export function hostMacOf(ip: string, interfaces = networkInterfaces()): string | undefined {
  const wanted = canonicalIP(ip);
  for (const addresses of Object.values(interfaces)) {
    for (const a of addresses ?? []) {
      if (canonicalIP(a.address) === wanted && a.mac !== '00:00:00:00:00:00') return dashedMac(a.mac);
    }
  }
  return undefined;
}
