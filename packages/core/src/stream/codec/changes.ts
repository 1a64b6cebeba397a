/** The `Changes` message, identical in localnet.v1 and global.v1. */
import type { ServiceKey } from '../../model/types.js';
import type { StateChanges } from '../../nodeview/types.js';
import type { ProtoReader } from './wire/reader.js';
import type { ProtoWriter } from './wire/writer.js';

export function writeChanges(w: ProtoWriter, field: number, changes: StateChanges, full: boolean): void {
  const mark = w.fork(field);
  w.bool(1, full);
  if (!full && changes.updatedServices) for (const key of changes.updatedServices) w.stringAlways(2, key);
  for (const [svc, times] of changes.triggerTimes) {
    const entry = w.fork(3);
    w.stringAlways(1, svc);
    // int64 on the wire; epoch milliseconds are positive integers.
    w.packed(
      2,
      times.map((t) => Math.max(0, Math.trunc(t))),
    );
    w.join(entry);
  }
  w.bool(4, changes.nodeChanged);
  // int64 epoch ms; absent: no policy change.
  if (changes.policyChangedAt !== undefined) w.uint(5, Math.max(0, Math.trunc(changes.policyChangedAt)));
  w.join(mark);
}

export interface DecodedChanges {
  readonly changes: StateChanges;
  readonly full: boolean;
}

export function readChanges(r: ProtoReader, end: number): DecodedChanges {
  let full = false;
  let nodeChanged = false;
  let policyChangedAt = 0;
  const updated = new Set<ServiceKey>();
  const triggerTimes = new Map<ServiceKey, number[]>();
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 0:
        full = r.bool();
        break;
      case (2 << 3) | 2:
        updated.add(r.string() as ServiceKey);
        break;
      case (3 << 3) | 2: {
        const [svc, times] = readTriggerTimes(r, r.delimitedEnd());
        const into = triggerTimes.get(svc);
        if (into) into.push(...times);
        else triggerTimes.set(svc, times);
        break;
      }
      case (4 << 3) | 0:
        nodeChanged = r.bool();
        break;
      case (5 << 3) | 0:
        policyChangedAt = r.varint();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  const policy = policyChangedAt > 0 ? { policyChangedAt } : {};
  const changes: StateChanges = full
    ? { triggerTimes, nodeChanged, ...policy }
    : { updatedServices: updated, triggerTimes, nodeChanged, ...policy };
  return { changes, full };
}

function readTriggerTimes(r: ProtoReader, end: number): [ServiceKey, number[]] {
  let svc = '';
  const times: number[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) svc = r.string();
    else if (tag >> 3 === 2) r.uints(tag & 7, times);
    else r.skip(tag & 7);
  }
  r.finish(end);
  return [svc as ServiceKey, times];
}

/** When a state carries no Changes message at all: nothing is known, so everything changed. */
export const NO_CHANGES_MESSAGE: DecodedChanges = {
  changes: { triggerTimes: new Map(), nodeChanged: false },
  full: true,
};
