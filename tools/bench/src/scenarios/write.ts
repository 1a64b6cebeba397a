import { writeFile } from 'node:fs/promises';
import { toYaml } from '../kube/fast-yaml.js';
import type { KubeList } from '../kube/types.js';
import { generate, type ScenarioName } from './catalog.js';
import type { Scenario } from './scenario.js';

export type ScenarioFormat = 'yaml' | 'json';

/** The scenario as one `kind: List`, nodes first, then Services, then EndpointSlices. */
export function toList(scenario: Scenario): KubeList {
  return {
    apiVersion: 'v1',
    kind: 'List',
    metadata: { resourceVersion: '' },
    items: [...scenario.nodes, ...scenario.services, ...scenario.endpointSlices],
  };
}

/**
 * JSON is written one item per line (greppable, diffable, and valid YAML too); YAML in kubectl's
 * block layout through the fast emitter.
 */
export function serializeScenario(scenario: Scenario, format: ScenarioFormat): string {
  const list = toList(scenario);
  if (format === 'yaml') return toYaml(list);
  const { items, ...head } = list;
  const open = JSON.stringify({ ...head, items: [] }).slice(0, -2);
  let text = `${open}\n`;
  items.forEach((item, i) => (text += (i === 0 ? '' : ',\n') + JSON.stringify(item)));
  return `${text}\n]}\n`;
}

export function formatFromPath(path: string): ScenarioFormat {
  if (/\.ya?ml$/i.test(path)) return 'yaml';
  if (/\.json$/i.test(path)) return 'json';
  throw new Error(`cannot tell the format of ${path}: use .yaml, .yml or .json`);
}

/** Writes the named scenario (or a generated one) as a `kind: List` file for core's file source. Returns the byte size. */
export async function writeScenario(
  name: ScenarioName | Scenario,
  path: string,
  format: ScenarioFormat = formatFromPath(path),
): Promise<number> {
  const scenario = typeof name === 'string' ? generate(name) : name;
  const text = serializeScenario(scenario, format);
  await writeFile(path, text);
  return Buffer.byteLength(text);
}
