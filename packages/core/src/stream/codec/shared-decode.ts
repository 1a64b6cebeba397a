/** Messages both APIs share: map<string, string> entries and ClientIPAffinity; how a decode's steps run. */
import type { SessionAffinity } from '../../model/types.js';
import type { ProtoReader } from './wire/reader.js';

export function readMapEntry(r: ProtoReader, end: number): [string, string] {
  let key = '';
  let value = '';
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) key = r.string();
    else if (tag === ((2 << 3) | 2)) value = r.string();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return [key, value];
}

export function readAffinity(r: ProtoReader, end: number): SessionAffinity {
  let timeoutSeconds = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 0)) timeoutSeconds = r.varint();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { type: 'ClientIP', timeoutSeconds };
}
