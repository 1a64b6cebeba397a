import type { HealthCheckAddresses } from '../health/health-check-addresses.js';

/**
 * Where a program's per-Service health-check node ports listen. On a node (no `--netns`) that is
 * every address, as kube-proxy without nodePortAddresses. With `--netns` the program programs
 * another namespace's kernel (a test, a lab, a benchmark) while its own sockets stay in the
 * namespace it runs in, normally the host's: there the ports would open on every host address for a
 * node that is not this host. They listen on loopback instead (unset: the servers' default).
 */
export function programHealthCheckAddresses(netns: string | undefined): HealthCheckAddresses | undefined {
  return netns === undefined ? undefined : LOOPBACK;
}

const LOOPBACK: readonly string[] = ['127.0.0.1'];
