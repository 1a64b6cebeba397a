/**
 * Flag value parsers with pflag's semantics and Go's error texts, so
 * `invalid argument "yes" for "--masquerade-all" flag: strconv.ParseBool: parsing "yes": invalid syntax`
 * reads as it does upstream. Each throws an Error whose message is the part after `flag: `.
 */
import { parseIP } from '@kpng/core/entry';
import { parseGoDuration } from '@kpng/kit';
import { unknownFeatureGateError } from '../config/feature-gates.js';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

export function parseBool(text: string): boolean {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}

function parseInteger(text: string, min: number, max: number, fn: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.${fn}: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (value < min || value > max) throw new Error(`strconv.${fn}: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

export function parseInt32(text: string): number {
  return parseInteger(text, -(2 ** 31), 2 ** 31 - 1, 'ParseInt');
}

/** klog's `Level` (`-v`): an unsigned 32-bit integer. */
export function parseLevel(text: string): number {
  return parseInteger(text, 0, 2 ** 32 - 1, 'ParseUint');
}

export function parseFloat32(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
  return value;
}

export function parseDurationFlag(text: string): number {
  try {
    return parseGoDuration(text);
  } catch (e) {
    throw new Error(`time: ${(e as Error).message}`);
  }
}

/** `utilflag.IPVar`: an IP address (empty leaves the value unset). */
export function parseIPFlag(text: string): string {
  if (text !== '' && parseIP(text) === undefined) throw new Error(`${JSON.stringify(text)} is not a valid IP address`);
  return text;
}

/** `utilflag.IPPortVar`: `""`, an IP, or `IP:port`. */
export function parseIPPortFlag(text: string): string {
  if (text === '' || parseIP(text) !== undefined) return text;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(text);
  const host = m?.[1] ?? m?.[2];
  if (m === null || host === undefined || parseIP(host) === undefined || Number(m[3]) > 65535) {
    throw new Error(`${JSON.stringify(text)} is not in a valid format (ip or ip:port)`);
  }
  return text;
}

/** pflag's StringSlice: comma-separated; repeating the flag appends. */
export function parseStringSlice(text: string, previous: unknown): string[] {
  const items = text === '' ? [] : text.split(',').map((s) => s.trim());
  return [...((previous as string[] | undefined) ?? []), ...items];
}

/** `cliflag.MapStringBool`: `A=true,B=false`; repeating the flag merges. */
export function parseMapStringBool(text: string, previous: unknown): Record<string, boolean> {
  const out = { ...((previous as Record<string, boolean> | undefined) ?? {}) };
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) throw new Error(`missing bool value for ${pair.trim()}`);
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    try {
      out[key] = parseBool(raw);
    } catch (e) {
      throw new Error(`invalid value of ${key}=${raw}, err: ${(e as Error).message}`);
    }
  }
  return out;
}

/** `--feature-gates` (component-base's featureGate.Set): the pairs, then upstream's known-gate check. */
export function parseFeatureGates(text: string, previous: unknown): Record<string, boolean> {
  const gates = parseMapStringBool(text, previous);
  const error = unknownFeatureGateError(gates);
  if (error !== undefined) throw new Error(error);
  return gates;
}

export function oneOf(allowed: readonly string[]): (text: string) => string {
  return (text) => {
    if (allowed.includes(text)) return text;
    const shown = allowed.map((a) => (a === '' ? '""' : a)).join(', ');
    throw new Error(`must be one of ${shown}`);
  };
}

/** resource.Quantity as the logsapi buffer-size flags take it (`0`, `64Ki`, `1M`); kept as written. */
export function parseQuantity(text: string): string {
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.test(text)) {
    throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  }
  return text;
}
