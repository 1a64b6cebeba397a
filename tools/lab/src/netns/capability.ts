import { NetworkNamespace } from './namespace.js';

export interface Capability {
  readonly ok: boolean;
  readonly reason?: string;
}

let probed: Promise<Capability> | undefined;
let probes = 0;

/**
 * Whether this process can build the lab: create a namespace and a veth pair inside it (the lab
 * needs no other kernel feature). Probed once per process.
 */
export function canCreateNamespaces(): Promise<Capability> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<Capability> {
  if (process.platform !== 'linux')
    return { ok: false, reason: `network namespaces need Linux (this is ${process.platform})` };
  let namespace: NetworkNamespace | undefined;
  try {
    namespace = await NetworkNamespace.create(`capability-${probes++}`);
    await namespace.exec(['ip', 'link', 'add', 'probe0', 'type', 'veth', 'peer', 'name', 'probe1']);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `cannot create a network namespace with a veth pair: ${(error as Error).message}` };
  } finally {
    await namespace?.delete().catch(() => undefined);
  }
}
