import { canCreateNamespaces, type Capability } from './capability.js';

/**
 * `KPNG_E2E` decides what kernel e2e suites do:
 * - `required` (CI): a missing capability fails the run;
 * - `off`: never run them;
 * - unset (`auto`): run where namespaces can be created, otherwise skip loudly.
 */
export type E2eMode = 'required' | 'auto' | 'off';

export function e2eMode(env: NodeJS.ProcessEnv = process.env): E2eMode {
  const value = (env['KPNG_E2E'] ?? '').trim().toLowerCase();
  if (value === 'required' || value === 'require' || value === '1' || value === 'true') return 'required';
  if (value === 'off' || value === '0' || value === 'false' || value === 'skip') return 'off';
  return 'auto';
}

export interface KernelE2eOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Defaults to `canCreateNamespaces`; tests substitute a fake capability. */
  readonly probe?: () => Promise<Capability>;
}

export interface KernelE2e {
  readonly run: boolean;
  readonly reason?: string;
}

/**
 * Call at the top of a kernel e2e test file: `const e2e = await kernelE2e('nft backend');
 * describe.skipIf(!e2e.run)(…)`. Throws in `required` mode when namespaces are unavailable, so the
 * file fails instead of skipping.
 */
export async function kernelE2e(suite: string, options: KernelE2eOptions = {}): Promise<KernelE2e> {
  const mode = e2eMode(options.env);
  if (mode === 'off') return skip(suite, 'KPNG_E2E=off');
  const capability = await (options.probe ?? canCreateNamespaces)();
  if (capability.ok) return { run: true };
  const reason = capability.reason ?? 'network namespaces are unavailable';
  if (mode === 'required')
    throw new Error(`KPNG_E2E=required but the kernel e2e suite "${suite}" cannot run: ${reason}`);
  return skip(suite, reason);
}

function skip(suite: string, reason: string): KernelE2e {
  const banner = '!'.repeat(78);
  console.warn(
    `\n${banner}\n!! SKIPPING kernel e2e suite "${suite}": ${reason}\n!! (set KPNG_E2E=required to make this a failure)\n${banner}\n`,
  );
  return { run: false, reason };
}
