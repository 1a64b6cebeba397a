/**
 * `--write-timeout`, every kernel backend's flag: how long one kernel command (an `nft -f`, an
 * `iptables-restore`) may run before it is killed and the sync fails. One definition, one parser.
 */
import { parseDurationMs } from '@kpng/kit';
import type { BackendFlag, FlagValues } from './backend-module.js';
import { UsageError } from './program-options.js';

export const WRITE_TIMEOUT_FLAG: Readonly<Record<string, BackendFlag>> = {
  'write-timeout': {
    type: 'string',
    value: 'DURATION',
    help: 'kill a kernel command still running after this long; the sync fails and is retried in full',
    default: "the backend's",
  },
};

/** `{ writeTimeoutMs }` from `--write-timeout`, or `{}` when absent (the backend's default). */
export function parseWriteTimeout(values: FlagValues): { readonly writeTimeoutMs?: number } {
  const text = values['write-timeout'];
  if (text === undefined) return {};
  let ms: number;
  try {
    ms = parseDurationMs(String(text));
  } catch (e) {
    throw new UsageError(`--write-timeout: ${(e as Error).message}`);
  }
  if (!(ms > 0)) throw new UsageError('--write-timeout must be longer than 0');
  return { writeTimeoutMs: ms };
}
