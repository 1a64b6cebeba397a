import { parseAddLine } from './objects/index.js';
import type { NftObject } from './objects/types.js';

/**
 * Reads `add …` lines (as written by `dumpObjects` or `FakeNft.dump`) back into objects. Blank
 * lines and `#` comments are skipped; a bad line is reported with its number and text.
 */
export function parseDump(text: string): NftObject[] {
  const objects: NftObject[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      objects.push(parseAddLine(line));
    } catch (error) {
      throw new Error(`dump line ${index + 1}: ${(error as Error).message}: ${line}`, { cause: error });
    }
  });
  return objects;
}
