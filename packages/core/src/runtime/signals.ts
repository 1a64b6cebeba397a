import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { log } from '../util/log.js';
import { installFaultPolicy } from './process-faults.js';

/**
 * SIGINT and SIGTERM (and an optional caller's signal) as one AbortSignal: the one place a kpng
 * program listens for termination. `dispose()` removes the process listeners again.
 */
export function terminationSignal(also?: AbortSignal): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => () => {
    if (!controller.signal.aborted) controller.abort(new Error(`received ${name}`));
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  const onAlso = () => controller.abort(also?.reason);
  if (also?.aborted) onAlso();
  else also?.addEventListener('abort', onAlso, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      also?.removeEventListener('abort', onAlso);
    },
  };
}

/**
 * Runs `main` when `moduleUrl` is the script node was started with (not when imported), and exits
 * with its code. Every kpng program starts here, so every one runs under the process fault policy
 * (`installFaultPolicy`: an exception nothing handled is counted and logged, and the program carries on);
 * a `main` that throws or rejects is a failed start: logged, exit 1.
 */
export async function runAsMain(moduleUrl: string, main: () => Promise<number>): Promise<void> {
  const script = process.argv[1];
  if (script === undefined || realpathSync(script) !== fileURLToPath(moduleUrl)) return;
  installFaultPolicy();
  try {
    process.exit(await main());
  } catch (e) {
    log.error('fatal', { err: e });
    process.exit(1);
  }
}
