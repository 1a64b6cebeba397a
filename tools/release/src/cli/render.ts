#!/usr/bin/env node
// `npm run -w @kpng/release render -- <overlay>`: prints an overlay as a YAML stream, for
// `kubectl apply -f -` where neither kustomize nor `kubectl apply -k` is available.
import { stringify } from 'yaml';
import { overlayNames, renderOverlay } from '../kustomize/overlays.js';

const name = process.argv[2];
if (!name || !overlayNames().includes(name)) {
  console.error(`usage: render <overlay>   (overlays: ${overlayNames().join(', ')})`);
  process.exit(2);
}
process.stdout.write(
  renderOverlay(name)
    .map((r) => stringify(r, { lineWidth: 0 }))
    .join('---\n'),
);
