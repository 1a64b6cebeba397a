import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOY_DIR } from '../workspace.js';
import { renderKustomization, type Resource } from './render.js';

export const KUBERNETES_DIR = join(DEPLOY_DIR, 'kubernetes');
export const OVERLAYS_DIR = join(KUBERNETES_DIR, 'overlays');

/** Every overlay directory under deploy/kubernetes/overlays, by name. */
export function overlayNames(): string[] {
  return readdirSync(OVERLAYS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function renderOverlay(name: string): Resource[] {
  return renderKustomization(join(OVERLAYS_DIR, name));
}
