// @ts-check
// The boundaries ARCHITECTURE.md and STYLE.md describe, held by the linter instead of by memory.
// `npm run lint` runs it (CI too); tools/release/src/lint/boundaries.test.ts proves each rule fires.
import tseslint from 'typescript-eslint';

/** No reaching into another package's files: a package is used through its `exports` map only. */
const packageBoundaries = [
  {
    group: ['@kpng/*/src', '@kpng/*/src/**'],
    message: "Import the package's public entry (its exports map), not its sources.",
  },
  {
    group: ['@kpng/*/dist', '@kpng/*/dist/**', '**/dist/**'],
    message: 'Never import build output: import the package by name.',
  },
];

const privateTools = {
  group: ['@kpng/lab', '@kpng/lab/*', '@kpng/bench', '@kpng/release'],
  message: "tools/* are private: a package's runtime code never imports them.",
};
const noKpng = {
  group: ['@kpng/*', '@kpng/*/*', '!@kpng/lab', '!@kpng/kit', '!@kpng/kit/*'],
  message:
    '@kpng/nftables is a generic nftables library: it imports no kpng package (the kit and, in tests, the lab aside).',
};
/** Test code (test folders, testing entries, fixtures) stays out of every program's import graph. */
const testCode = {
  group: [
    '@kpng/*/testing',
    '**/test/**',
    '**/testing',
    '**/testing/**',
    '**/testing.js',
    '**/*fixtures.js',
    '**/*scenarios.js',
  ],
  message: "A package's shipped code never imports test code: its test/ folder, a testing entry, fixtures.",
};
const noPackages = {
  regex: String.raw`^(?!node:|\.\.?/)`,
  message: '@kpng/kit is dependency-free: it imports only node: modules and its own files.',
};
const noNftBackend = {
  group: ['@kpng/nft', '@kpng/nft/*'],
  message: 'The IPVS backend uses the nftables library (@kpng/nftables), never the nft backend.',
};
/**
 * Processes start through the kit's exec seam only (`processExecer`, `runSync`, `spawnChild`, ...):
 * one place for no-shell argv, typed errors, timeouts and kills. Its own rule (not part of
 * `restrict`), so the files the kit cannot serve are named once, in `CHILD_PROCESS_EXCEPTIONS`.
 */
const noChildProcess = [
  'error',
  {
    paths: ['node:child_process', 'child_process'].map((name) => ({
      name,
      message: "Start processes through @kpng/kit's exec seam (processExecer, runSync, spawnChild, withTimeout).",
    })),
  },
];
const CHILD_PROCESS_EXCEPTIONS = [
  // The seam itself.
  'packages/kit/src/exec.ts',
  // A long-lived shell or `nft -i` in its own process group (`detached`, killed as a group on abort) whose
  // handles are unreferenced while it idles: more than `spawnChild` says (reason beside the import).
  'packages/nftables/src/long-lived-execer.ts',
];
/**
 * The `.mjs` scripts node runs as they are, with no build and no TypeScript loader: the kit is
 * TypeScript, its `dist` exists only after a build, so a script that must run before one (or in a
 * clone nobody built) starts its processes itself. Any other script goes through the seam.
 */
const SCRIPT_CHILD_PROCESS_EXCEPTIONS = [
  // `npm start`: it is what builds the workspace before running kpng.
  'tools/scripts/start.mjs',
  // `npm test` and its VM lanes: they drive Nx and vitest from the sources (tests resolve the
  // `@kpng/source` condition; nothing needs to be built first).
  'tools/scripts/test.mjs',
  'tools/scripts/vm-lane.mjs',
  // The eBPF package's first build step (clang), also run by its kernel suites' global setup in a
  // child node that does not resolve the `@kpng/source` condition.
  'packages/ebpf/scripts/build-bpf.mjs',
];
/** Later blocks replace a rule's options for the files they match, so each block lists every pattern that applies. */
const restrict = (...extra) => ['error', { patterns: [...packageBoundaries, ...extra] }];
const TEST_CODE = ['**/*.test.ts', '**/testing/**', '**/testing.ts', '**/*fixtures.ts', '**/*scenarios.ts'];

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.nx/**', '**/.cache/**', '**/testdata/**', '**/*.js'],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.shared.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-restricted-imports': restrict(),
      '@typescript-eslint/no-restricted-imports': noChildProcess,
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Tests poke at untyped manifests and JSON: `any` is fine there.
    files: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // A package's shipped code never depends on the private tools (lab, bench, release); its tests may.
    files: ['packages/*/src/**/*.ts'],
    ignores: TEST_CODE,
    rules: { 'no-restricted-imports': restrict(privateTools, testCode) },
  },
  {
    // The nftables library is knftables-shaped and knows nothing of Kubernetes or kpng's core.
    files: ['packages/nftables/src/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(privateTools, noKpng, testCode) },
  },
  {
    files: TEST_CODE.map((glob) => `packages/nftables/src/${glob}`),
    rules: { 'no-restricted-imports': restrict(noKpng) },
  },
  {
    files: ['packages/kit/src/**/*.ts'],
    ignores: TEST_CODE,
    rules: { 'no-restricted-imports': restrict(noPackages, testCode) },
  },
  {
    files: ['packages/ipvs/src/**/*.ts'],
    ignores: TEST_CODE,
    rules: { 'no-restricted-imports': restrict(privateTools, noNftBackend, testCode) },
  },
  {
    files: ['packages/ipvs/test/**/*.ts', ...TEST_CODE.map((glob) => `packages/ipvs/src/${glob}`)],
    rules: { 'no-restricted-imports': restrict(noNftBackend) },
  },
  {
    files: CHILD_PROCESS_EXCEPTIONS,
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    // The scripts are plain JavaScript (no type-aware rules): only the exec seam is held here.
    files: ['**/*.mjs'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { 'no-restricted-imports': noChildProcess },
  },
  {
    files: SCRIPT_CHILD_PROCESS_EXCEPTIONS,
    rules: { 'no-restricted-imports': 'off' },
  },
);
