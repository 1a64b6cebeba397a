import { runSync } from '@kpng/kit';

/**
 * What the images remove from their installed `node_modules` after `npm install --omit=dev`: files
 * no program loads at run time. Type declarations and TypeScript sources (Node never runs `.ts`
 * under `node_modules`: it refuses to strip types there), source maps (the images do not set
 * `--enable-source-maps`), and dependencies' documentation, changelogs, tests and examples.
 * Licences and every `package.json` stay. @kubernetes/client-node alone carried 22 MB of `.d.ts`
 * and 6.8 MB of maps in its 57 MB.
 *
 * One `find` command, used by both build paths: the buildah recipe runs `pruneArgs` on its staging
 * tree, and the generated Dockerfiles' install stage runs `pruneShell` (the same arguments, quoted).
 */
export const PRUNED_CODE: readonly string[] = ['*.ts', '*.mts', '*.cts', '*.map', '*.tsbuildinfo'];

/**
 * Documentation files, matched by exact name or extension only: a module may be called `readme.js`
 * or `notices.js`. Licences stay (`LICENSE.md` too: `KEPT`).
 */
export const PRUNED_DOCS: readonly string[] = [
  '*.md',
  '*.markdown',
  'README',
  'README.txt',
  'CHANGELOG',
  'CHANGELOG.txt',
  'HISTORY',
  'AUTHORS',
  '.npmignore',
  '.editorconfig',
  '.travis.yml',
];

const KEPT = ['LICEN[CS]E*', 'COPYING*', 'NOTICE*'];

/**
 * Folders at a dependency's root (never deeper: `yaml/dist/doc` is code) that nothing imports:
 * tests, documentation, examples, CI settings.
 */
export const PRUNED_ROOT_DIRS: readonly string[] = [
  '__tests__',
  'test',
  'tests',
  'doc',
  'docs',
  'example',
  'examples',
  '.github',
];

/**
 * `find` arguments removing the pruned files and folders under `nodeModules` (a `node_modules`
 * folder). `platform` is the system the image runs on (Node's `process.platform` name): its native
 * prebuilds stay, every architecture; the Linux images keep `linux-*`, the Windows one `win32-*`.
 */
export function pruneArgs(nodeModules: string, platform: 'linux' | 'win32' = 'linux'): string[] {
  const anyOf = (names: readonly string[]): string[] => [
    '(',
    ...names.flatMap((n, i) => (i === 0 ? ['-iname', n] : ['-o', '-iname', n])),
    ')',
  ];
  const rootDir = `.*/node_modules/(@[^/]+/)?[^@/][^/]*/(${PRUNED_ROOT_DIRS.map((d) => d.replace('.', '\\.')).join('|')})`;
  return [
    nodeModules,
    '-regextype',
    'posix-extended',
    '(',
    '(',
    '-type',
    'd',
    '-regex',
    rootDir,
    '-prune',
    ')',
    '-o',
    // native prebuilds for other systems (android, darwin, ios, win32 or linux): the image's stay, every architecture
    '(',
    '-type',
    'd',
    '-regex',
    '.*/prebuilds/[^/]+',
    '!',
    '-name',
    `${platform}-*`,
    '-prune',
    ')',
    '-o',
    '(',
    '-type',
    'f',
    ...anyOf(PRUNED_CODE),
    ')',
    '-o',
    '(',
    '-type',
    'f',
    ...anyOf(PRUNED_DOCS),
    '!',
    ...anyOf(KEPT),
    ')',
    ')',
    '-exec',
    'rm',
    '-rf',
    '--',
    '{}',
    '+',
  ];
}

/** `pruneArgs` as one shell command line (for a Dockerfile's `RUN`). */
export function pruneShell(nodeModules: string, platform: 'linux' | 'win32' = 'linux'): string {
  const quote = (a: string): string => (/^[\w./@=-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
  return ['find', ...pruneArgs(nodeModules, platform).map(quote)].join(' ');
}

/** Runs `pruneArgs` on `nodeModules`; throws when `find` fails. */
export function pruneNodeModules(nodeModules: string, platform: 'linux' | 'win32' = 'linux'): void {
  const r = runSync(['find', ...pruneArgs(nodeModules, platform)], { timeoutMs: 300_000 });
  if (r.exitCode !== 0) throw new Error(`find ${nodeModules} (prune) failed (${r.exitCode}): ${r.stderr}`);
}
