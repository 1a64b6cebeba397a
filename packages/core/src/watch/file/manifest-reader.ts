import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../util/log.js';
import { listManifestFiles } from './manifest-files.js';
import { type ManifestObject, parseManifest } from './parse-manifest.js';

export type ManifestRead =
  | {
      readonly ok: true;
      readonly objects: readonly ManifestObject[];
      /** Some file has never parsed: what it holds is unknown, not absent. */
      readonly incomplete: boolean;
    }
  | { readonly ok: false; readonly error: string };

interface GoodParse {
  /** A digest, not the text: manifests can be tens of megabytes. */
  readonly digest: string;
  readonly objects: readonly ManifestObject[];
}

/**
 * Reads the manifests behind a path, remembering each file's last good parse. A file that is
 * malformed or unreadable contributes its last good objects, so a half-saved edit never deletes
 * anything; unchanged text is not parsed again.
 */
export class ManifestReader {
  private readonly lastGood = new Map<string, GoodParse>();

  constructor(
    private readonly path: string,
    private readonly log: Logger,
  ) {}

  async read(): Promise<ManifestRead> {
    let files: readonly string[];
    try {
      files = await listManifestFiles(this.path);
    } catch (e) {
      return { ok: false, error: `${this.path}: ${e instanceof Error ? e.message : String(e)}` };
    }
    for (const known of this.lastGood.keys()) if (!files.includes(known)) this.lastGood.delete(known);

    const objects: ManifestObject[] = [];
    let incomplete = false;
    for (const file of files) {
      const good = await this.readFile(file);
      if (good) objects.push(...good.objects);
      else incomplete = true;
    }
    return { ok: true, objects, incomplete };
  }

  private async readFile(file: string): Promise<GoodParse | undefined> {
    const previous = this.lastGood.get(file);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      this.log.error('cannot read manifest, keeping its last good state', { path: file, error: e });
      return previous;
    }
    const digest = createHash('sha256').update(text).digest('base64');
    if (previous?.digest === digest) return previous;
    const parsed = parseManifest(file, text);
    if (!parsed.ok) {
      this.log.error(`malformed manifest ${parsed.error}`, {
        path: file,
        error: parsed.error,
        keptLastGood: previous !== undefined,
      });
      return previous;
    }
    const good = { digest, objects: parsed.objects };
    this.lastGood.set(file, good);
    return good;
  }
}
