import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded on first use: only a `--config` file and `--write-config-to` need it,
 * so a proxy configured by flags (as the benchmarks and most DaemonSets start it) never loads its
 * ~70 modules. Synchronous (`require`), so decoding stays a plain function.
 */
export function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}
