/**
 * `explain NAMESPACE/NAME`: what this node programmed for one Service, read back from the kernel
 * by the running backend (`BackendModule.explain`) and printed grouped. Backends select their own
 * objects (they know their naming); this module only parses the command line and prints.
 */
import { parseArgs } from 'node:util';
import { processExecer, type Execer } from '@kpng/kit';
import type { ServiceModel } from '../model/types.js';
import type { BackendModule } from './backend-module.js';
import { fetchService } from './explain-service.js';
import { UsageError } from './usage-error.js';

export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

export interface ExplainContext {
  readonly execer: Execer;
  /** Read this network namespace's kernel instead of the process's own. */
  readonly netns?: string;
  /**
   * The Service as the API server has it now (the program's client connection), for backends whose
   * kernel objects carry no Service names (IPVS, BPF maps): they select by its addresses and ports.
   * Throws when it cannot be had. Absent where the program has no API connection.
   */
  readonly lookupService?: () => Promise<ServiceModel>;
}

/** One rule, element or virtual server, with its counters when the kernel keeps some. */
export interface ExplainLine {
  readonly text: string;
  readonly packets?: number;
  readonly bytes?: number;
}

export interface ExplainSection {
  /** e.g. `service entry points`, `endpoint chain KUBE-SEP-...`, `endpoints-tcp elements`. */
  readonly title: string;
  readonly lines: readonly ExplainLine[];
}

export interface ExplainReport {
  /** Where it was read: `nftables table ip kube-proxy`, `iptables-nft (IPv4)`... */
  readonly source: string;
  readonly sections: readonly ExplainSection[];
}

// Kubernetes names: a namespace is a DNS label, a Service name a DNS-1035 label.
const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `NAMESPACE/NAME` (or `NAME`, in `default`), validated so that no text but a name reaches a selection. */
export function parseServiceRef(text: string): ServiceRef {
  const parts = text.split('/');
  const [namespace, name] = parts.length === 1 ? ['default', parts[0]!] : parts;
  if (
    parts.length > 2 ||
    namespace === undefined ||
    name === undefined ||
    !LABEL.test(namespace) ||
    !LABEL.test(name)
  ) {
    throw new UsageError(`explain takes NAMESPACE/NAME, not ${JSON.stringify(text.slice(0, 300))}`);
  }
  return { namespace, name };
}

/** The report as text: one block per source, sections with their lines, counters in front. */
export function formatExplain(service: ServiceRef, reports: readonly ExplainReport[]): string {
  const out: string[] = [];
  for (const report of reports) {
    out.push(`# ${service.namespace}/${service.name} in ${report.source}`);
    if (report.sections.length === 0) out.push('  (nothing programmed for this Service)');
    for (const section of report.sections) {
      out.push(`${section.title}:`);
      for (const line of section.lines) {
        const counters = line.packets === undefined ? '' : `[${line.packets} packets, ${line.bytes ?? 0} bytes] `;
        out.push(`  ${counters}${line.text}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}

export interface ExplainIo {
  readonly execer?: Execer;
  /** Replaces the API lookup of the Service (tests). */
  readonly lookupService?: () => Promise<ServiceModel>;
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
}

/**
 * `<program> explain NAMESPACE/NAME [--netns NS] [--kubeconfig F] [--master URL] [backend flags]`:
 * exit 0 with the report, 2 on a usage error, 1 when the kernel (or, for a backend that needs it,
 * the Service in the API server) could not be read.
 */
export async function runExplain(
  program: string,
  module: BackendModule<unknown> | undefined,
  argv: readonly string[],
  io: ExplainIo = {},
): Promise<number> {
  const stdout = io.stdout ?? ((t: string) => void process.stdout.write(t));
  const stderr = io.stderr ?? ((t: string) => void process.stderr.write(t));
  let service: ServiceRef;
  let options: unknown;
  let netns: string | undefined;
  let kubeconfig: string | undefined;
  let master: string | undefined;
  try {
    if (module?.explain === undefined) {
      throw new UsageError(
        module === undefined
          ? 'explain needs --backend (nft, iptables, ipvs, ebpf or win-kernel)'
          : `the ${module.name} backend cannot explain yet (nft, iptables, ipvs, ebpf and win-kernel can)`,
      );
    }
    const flags: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {
      backend: { type: 'string' },
      netns: { type: 'string' },
      // Where the Service is looked up, for backends whose kernel objects carry no names (ipvs, ebpf).
      kubeconfig: { type: 'string' },
      master: { type: 'string' },
    };
    for (const [name, flag] of Object.entries(module.flags)) {
      flags[name] = { type: flag.type, ...(flag.multiple === true ? { multiple: true } : {}) };
    }
    let parsed;
    try {
      parsed = parseArgs({ args: [...argv], options: flags, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError((e as Error).message.replace(/\. To specify.*$/s, ''));
    }
    if (parsed.positionals.length !== 1) throw new UsageError('explain takes one NAMESPACE/NAME');
    service = parseServiceRef(parsed.positionals[0]!);
    netns = parsed.values['netns'] as string | undefined;
    kubeconfig = parsed.values['kubeconfig'] as string | undefined;
    master = parsed.values['master'] as string | undefined;
    const values: Record<string, string | boolean | readonly string[] | undefined> = {};
    for (const name of Object.keys(module.flags)) values[name] = parsed.values[name] as string | boolean | undefined;
    options = module.parseFlags(values);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    stderr(`${program} explain: ${e.message}\n`);
    return 2;
  }
  try {
    const ref = service;
    const reports = await module.explain(options, service, {
      execer: io.execer ?? processExecer,
      ...(netns === undefined ? {} : { netns }),
      lookupService:
        io.lookupService ??
        (() =>
          fetchService(
            {
              ...(kubeconfig === undefined ? {} : { kubeconfigPath: kubeconfig }),
              ...(master === undefined ? {} : { server: master }),
            },
            ref,
          )),
    });
    stdout(formatExplain(service, reports));
    return 0;
  } catch (e) {
    stderr(`${program} explain: ${(e as Error).message}\n`);
    return 1;
  }
}
