/**
 * `kube-proxy explain NAMESPACE/NAME [kube-proxy flags]`: what the configured mode (`--proxy-mode`,
 * `--config`, as the proxy itself reads them) programmed in this node's kernel for one Service,
 * printed as `kpng explain` prints it. Reads only; KPNG_NETNS reads a namespace's kernel instead.
 */
import { parseServiceRef, UsageError, type ServiceRef } from '@kpng/core';
import { fetchService, formatExplain } from '@kpng/core/runtime';
import { processExecer, type Execer } from '@kpng/kit';
import { CompleteError, completeConfiguration } from '../config/complete.js';
import { parseFlags, type ParsedFlags } from '../flags/parse.js';
import { AVAILABLE_MODES, DEFAULT_MODE, loadMode, MODES } from '../run/modes.js';
import type { MainIO } from './main.js';

export async function explain(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: MainIO,
  execer: Execer = processExecer,
): Promise<number> {
  const usage = (message: string): number => (io.stderr(`Error: explain: ${message}\n`), 2);
  let service: ServiceRef;
  let flags: ParsedFlags;
  try {
    if (argv.length === 0 || argv[0]!.startsWith('-')) throw new UsageError('takes NAMESPACE/NAME first');
    service = parseServiceRef(argv[0]!);
    flags = parseFlags(argv.slice(1));
  } catch (e) {
    return usage((e as Error).message);
  }
  let config;
  let master: string | undefined;
  try {
    const completed = completeConfiguration(flags, { defaultMode: DEFAULT_MODE, readFile: io.readFile });
    config = completed.config;
    master = completed.master;
  } catch (e) {
    if (!(e instanceof CompleteError)) throw e;
    return usage(e.message);
  }
  if (!AVAILABLE_MODES.includes(config.mode)) {
    // A mode of the other OS: say what it would read and why it is not here (kernelspace: HNS on Windows).
    const other = MODES.get(config.mode)?.platform === 'win32';
    return usage(
      other
        ? `${config.mode} mode reads Windows HNS load balancers: HNS (the Host Compute Network service) does not exist on ${process.platform}; run explain on the Windows node`
        : `no ${JSON.stringify(config.mode)} mode on this platform`,
    );
  }
  const mode = await loadMode(config.mode);
  if (mode.explain === undefined) return usage(`${config.mode} mode cannot explain`);
  const netns = env['KPNG_NETNS'] || undefined;
  // Where the proxy itself would find the Service (ipvs mode: IPVS keeps no names).
  const kubeconfig = config.clientConnection.kubeconfig;
  const lookupService = () =>
    fetchService(
      {
        ...(kubeconfig !== '' ? { kubeconfigPath: kubeconfig } : {}),
        ...(master !== undefined ? { server: master } : {}),
      },
      service,
    );
  try {
    const reports = await mode.explain(config, service, {
      execer,
      lookupService,
      ...(netns === undefined ? {} : { netns }),
    });
    io.stdout(formatExplain(service, reports));
    return 0;
  } catch (e) {
    io.stderr(`Error: explain: ${(e as Error).message}\n`);
    return 1;
  }
}
