import { convertEndpointSlice, convertNode, convertService } from '@kpng/core/runtime';
import { nodeName, serviceKey, sliceKey, type ModelEvent } from '@kpng/core';
import type { EndpointSliceObject } from '../kube/types.js';
import type { Scenario } from './scenario.js';

/**
 * A scenario's raw objects as core's model events, through core's own converters (what the kube and
 * file sources do). Benchmarks feed these straight into `NodeView.model` to leave parsing out of the figures.
 */
export function toModelEvents(s: Scenario): ModelEvent[] {
  const events: ModelEvent[] = [];
  for (const obj of s.services) {
    const c = convertService(obj);
    if (c.ok && c.value)
      events.push({ kind: 'Service', op: 'upsert', key: serviceKey(c.value.namespace, c.value.name), object: c.value });
  }
  for (const obj of s.endpointSlices) events.push(sliceEvent(obj));
  for (const obj of s.nodes) {
    const c = convertNode(obj);
    if (c.ok) events.push({ kind: 'Node', op: 'upsert', key: nodeName(c.value.name), object: c.value });
  }
  return events;
}

/** One EndpointSlice as an upsert event; a generated slice that does not convert is a bug. */
export function sliceEvent(obj: EndpointSliceObject): ModelEvent & { kind: 'EndpointSlice' } {
  const c = convertEndpointSlice(obj);
  if (!c.ok || !c.value.slice) throw new Error(`bad EndpointSlice ${obj.metadata.name}`);
  return {
    kind: 'EndpointSlice',
    op: 'upsert',
    key: sliceKey(c.value.slice.namespace, c.value.slice.name),
    object: c.value.slice,
  };
}

/** A Ready flip of the slice's first endpoint (to terminating and back), from the state it is in: the commonest real change. */
export function flipFirstEndpoint(slice: EndpointSliceObject): EndpointSliceObject {
  const [head, ...rest] = slice.endpoints;
  if (head === undefined) throw new Error(`EndpointSlice ${slice.metadata.name} has no endpoint to flip`);
  const ready = head.conditions.ready !== true;
  return {
    ...slice,
    endpoints: [{ ...head, conditions: { ...head.conditions, ready, serving: true, terminating: !ready } }, ...rest],
  };
}
