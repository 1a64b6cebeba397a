import { NftError } from './errors.js';
import type { Execer } from '@kpng/kit';

/** What the host's nft and kernel support, decided once when a client is created. */
export interface Capabilities {
  /** e.g. `1.0.6`. */
  readonly version: string;
  /** nft >= 1.0.8 with kernel support has `destroy`; otherwise it is emulated. */
  readonly destroy: boolean;
  /** Comments on tables, chains, sets, maps and counters (kernel >= 5.10); dropped otherwise. */
  readonly objectComments: boolean;
}

/** Probe objects are only ever checked (`--check`), never created. */
const PROBE_TABLE = 'kpng-capability-probe';

export function parseNftVersion(output: string): readonly [number, number, number] | undefined {
  const match = /v(\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

/**
 * nft before 1.0.1 parses every table on the host when it runs, so another component's table
 * could crash it (the reason knftables refuses those releases too).
 */
function checkVersion(version: readonly [number, number, number]): void {
  const [major, minor, patch] = version;
  if (major > 1 || (major === 1 && (minor > 0 || patch >= 1))) return;
  throw new NftError(`nft ${version.join('.')} is too old: kpng needs nft 1.0.1 or newer`, 'not-supported', '');
}

/** `nft(args)` builds the full argv (it may prefix `ip netns exec NS`). */
export async function detectCapabilities(
  execer: Execer,
  nft: (args: readonly string[]) => string[],
): Promise<Capabilities> {
  const versionResult = await execer.run(nft(['--version']), '');
  const version = parseNftVersion(versionResult.stdout);
  if (versionResult.exitCode !== 0 || version === undefined) {
    throw new NftError(
      `cannot determine the nft version: ${versionResult.stderr || versionResult.stdout}`.trim(),
      'not-supported',
      versionResult.stderr,
    );
  }
  checkVersion(version);
  const accepts = async (line: string): Promise<boolean> =>
    (await execer.run(nft(['--check', '-f', '-']), `${line}\n`)).exitCode === 0;
  return Object.freeze({
    version: version.join('.'),
    destroy: await accepts(`destroy table ip ${PROBE_TABLE}`),
    objectComments: await accepts(`add table ip ${PROBE_TABLE} { comment "probe" ; }`),
  });
}
