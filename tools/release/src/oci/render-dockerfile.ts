import { pruneShell } from '../npm/prune.js';
import type { ImageSpec } from './catalog.js';
import {
  BASE_IMAGE,
  IMAGE_ENV,
  IMAGE_WORKDIR,
  imageLabels,
  imageUser,
  INSTALL_MANIFEST,
  INSTALL_ROOT,
} from './image-config.js';

/**
 * The Dockerfile of a catalog entry: three stages on the pinned node LTS image, **build** (npm
 * install, nx build, npm pack), **install** (`npm install --omit=dev <tarballs>` into /opt/kpng,
 * the pack smoke test's step, then `prune.ts`'s removal of what no program loads) and **runtime** (the installed tree, the entry's Debian packages,
 * no npm). Generated so that it cannot drift from the buildah recipe built from the same entry.
 */
export function renderDockerfile(spec: ImageSpec): string {
  const ws = spec.packages.map((p) => `-w ${p}`).join(' ');
  const dropNpm = [
    'rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \\',
    '      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /opt/yarn-*',
  ];
  const runtime: string[] = [];
  if (spec.apt.length > 0) {
    runtime.push(
      ...(spec.aptWhy ?? []).map((l) => `# ${l}`),
      'RUN apt-get update \\',
      ` && apt-get install -y --no-install-recommends ${spec.apt.join(' ')} \\`,
      ' && rm -rf /var/lib/apt/lists/* \\',
      ` && ${dropNpm[0]}`,
      dropNpm[1]!,
    );
  } else {
    runtime.push(`RUN ${dropNpm[0]}`, dropNpm[1]!);
  }
  runtime.push(`COPY --from=install ${INSTALL_ROOT} ${INSTALL_ROOT}`);
  for (const [link, target] of Object.entries(spec.links ?? {})) runtime.push(`RUN ln -s ${target} ${link}`);
  if (spec.userDirs?.length) runtime.push(...(spec.userDirsWhy ?? []).map((l) => `# ${l}`));
  if (spec.userDirs?.length)
    runtime.push(
      `RUN mkdir -p ${spec.userDirs.join(' ')} && chown ${spec.user}:${spec.user} ${spec.userDirs.join(' ')}`,
    );
  const labels = Object.entries(imageLabels(spec)).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  runtime.push(
    `ENV ${Object.entries(IMAGE_ENV)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
    `LABEL ${labels.join(' \\\n      ')}`,
    ...spec.userWhy.map((l) => `# ${l}`),
    `WORKDIR ${IMAGE_WORKDIR}`,
    `USER ${imageUser(spec)}`,
    `EXPOSE ${spec.ports.join(' ')}`,
    `ENTRYPOINT ${JSON.stringify(spec.entrypoint).replaceAll('","', '", "')}`,
  );
  return [
    '# syntax=docker/dockerfile:1',
    '# GENERATED from tools/release/src/oci/catalog.ts: edit the entry there, then run',
    '#   npm run -w @kpng/release images -- dockerfiles',
    ...spec.about.map((l) => `# ${l}`),
    `# Build from the repository root:  docker build -f deploy/images/${spec.name}/Dockerfile -t kpng/${spec.name}:0.1.0 .`,
    '',
    '# --- build: compile the workspace and pack the packages this image ships -----------------------',
    `FROM ${BASE_IMAGE} AS build`,
    'ENV NX_NO_CLOUD=true NX_DAEMON=false NX_TUI=false CI=true',
    'RUN npm install -g npm@11 --no-audit --no-fund --loglevel=error',
    'WORKDIR /src',
    'COPY . .',
    'RUN npm install --no-audit --no-fund --loglevel=error',
    `RUN npx nx run-many -t build -p ${spec.packages.join(' ')}`,
    "# kpng's packages depend on each other by version and are not on a registry: pack every one it needs.",
    `RUN mkdir /packs && npm pack ${ws} --pack-destination /packs`,
    '',
    `# --- install: the packed tarballs, production dependencies only, into ${INSTALL_ROOT} ---------------`,
    `FROM ${BASE_IMAGE} AS install`,
    `WORKDIR ${INSTALL_ROOT}`,
    'COPY --from=build /packs/ /packs/',
    '# then remove what no program loads at run time (type declarations, TypeScript sources, source maps,',
    "# dependencies' docs and tests): tools/release/src/npm/prune.ts",
    `RUN echo '${JSON.stringify(INSTALL_MANIFEST)}' > package.json \\`,
    ' && npm install --omit=dev --no-audit --no-fund --loglevel=error /packs/*.tgz \\',
    ' && rm -rf /root/.npm \\',
    ` && ${pruneShell(`${INSTALL_ROOT}/node_modules`)}`,
    '',
    `# --- runtime: node, ${spec.apt.length ? 'the kernel tools the program calls, ' : ''}the installed packages (no npm, no build tools)`,
    `FROM ${BASE_IMAGE}`,
    ...runtime,
    '',
  ].join('\n');
}

/** `<Dockerfile>.dockerignore`: BuildKit reads it beside the Dockerfile (the context is the repository root). */
export const DOCKERIGNORE = `# GENERATED (tools/release/src/oci/render-dockerfile.ts). Build context is the repository root;
# BuildKit reads <Dockerfile>.dockerignore beside the Dockerfile.
**/node_modules
**/dist
**/.vitest-report.json
**/*.tsbuildinfo
.git
.nx
.cache
coverage
tmp
`;
