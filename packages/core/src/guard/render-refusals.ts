/**
 * What a backend does with a render refusal: count it in `kpng_render_refused_total{backend,kind,
 * reason}` and log it (a warning naming the Service, the field and the quoted value) once per
 * Service, kind and reason, however many versions of it arrive.
 */
import { Counter, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';
import type { Logger } from '../util/log.js';
import type { RefusalObserver, RenderRefusal } from './render-guard.js';

export const RENDER_REFUSED_METRIC = 'kpng_render_refused_total';

/** How many Service/kind/reason triples are remembered as logged; past it the memory starts over (bounded). */
const LOGGED_LIMIT = 1000;

export interface RenderRefusalsOptions {
  /** The `backend` label: `iptables`, `ipvs`. */
  readonly backend: string;
  /** Where the counter is served; none: not counted (tests). */
  readonly registry?: Registry;
  readonly log: Logger;
}

/** The observer a backend gives its `RenderGuard`. */
export function renderRefusals(options: RenderRefusalsOptions): RefusalObserver {
  const { backend, registry, log } = options;
  const counter =
    registry === undefined
      ? undefined
      : metricsOn(registry)(Counter, {
          name: RENDER_REFUSED_METRIC,
          help: 'Services, endpoints and node addresses a backend left out of its render because a value failed validation.',
          labelNames: ['backend', 'kind', 'reason'],
        });
  const logged = new Set<string>();
  return (refusal: RenderRefusal) => {
    counter?.inc({ backend, kind: refusal.kind, reason: refusal.reason });
    const once = `${refusal.kind}\u0000${refusal.key}\u0000${refusal.reason}`;
    if (logged.has(once)) return;
    if (logged.size >= LOGGED_LIMIT) logged.clear();
    logged.add(once);
    log.warn(message(refusal), {
      kind: refusal.kind,
      key: JSON.stringify(refusal.key).slice(0, 200),
      field: refusal.field,
      value: refusal.value,
      reason: refusal.reason,
    });
  };
}

function message(refusal: RenderRefusal): string {
  switch (refusal.kind) {
    case 'Service':
      return 'Service left out of the render: a value failed validation';
    case 'endpoint':
      return "endpoint left out of the render: a value failed validation (the Service's other endpoints are rendered)";
    case 'node':
      return "node value left out of the render: it failed validation (the node's other values are rendered)";
  }
}
