/**
 * A running proxy's backend, created as every kpng program creates one: the mode's `BackendModule`
 * (core's `loadBackendModule`, imported by the mode table's literal `importBackend`: this package
 * depends on every backend it vendors) with the configuration mapped onto the module's options by the mode (`mode-<name>.ts`).
 * Both are imported here, once the flags and configuration are read.
 */
import type { Backend } from '@kpng/core';
import { loadBackendModule } from '@kpng/core/runtime';
import type { Registry } from 'prom-client';
import type { KubeProxyConfiguration } from '../config/types.js';
import { modeEntry, type ModeContext } from './modes.js';

export interface ModeBackendContext extends ModeContext {
  readonly nodeName: string;
  readonly registry: Registry;
}

/** `config.mode`'s backend, plus warnings about the configuration's mapping. */
export async function createModeBackend(
  config: KubeProxyConfiguration,
  ctx: ModeBackendContext,
): Promise<{ backend: Backend; warnings: readonly string[] }> {
  const entry = modeEntry(config.mode);
  const [mode, module] = await Promise.all([
    entry.load(),
    loadBackendModule(entry.backend, () => entry.importBackend()),
  ]);
  const { options, warnings } = mode.backendOptions(config, ctx);
  const backend = await module.create(options, {
    nodeName: ctx.nodeName,
    registry: ctx.registry,
    ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
  });
  return { backend, warnings };
}
