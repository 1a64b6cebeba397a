/**
 * Whether two plain data values (what JSON can hold) have the same content: object key order and
 * `undefined` members do not matter, array order does. The model compares each upsert with what it
 * holds this way: a walk of both values, with none of the strings and digests a content hash of
 * every object would allocate (at s10k that hashing was most of the model's time, and its garbage).
 */
export function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameContent(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let defined = 0;
  for (const key in left) {
    const value = left[key];
    if (value === undefined) continue;
    defined++;
    if (!sameContent(value, right[key])) return false;
  }
  for (const key in right) if (right[key] !== undefined) defined--;
  return defined === 0;
}
