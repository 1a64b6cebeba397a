import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded on first use: resident memory at start (its size: docs/PERFORMANCE.md, "Figures behind choices in the code") that a
 * program watching an API server never needs (only a YAML manifest and `--output yaml` do).
 */
export function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}
