// Node module hooks that run kpng's TypeScript sources directly, without a build: the
// `@kpng/source` export condition makes workspace packages resolve to their `src/*.ts` (as vitest
// does), a `.js` import that does not exist is retried as `.ts` (nodenext import style), and `.ts`
// files are transpiled one by one with TypeScript's `transpileModule`. That is enough because the
// workspace compiles with `isolatedModules` and `verbatimModuleSyntax`: every file can be
// transpiled on its own. No type checking happens here; `npm run typecheck` does that.
// Loading the compiler costs seconds on a busy machine, so output is cached by content hash in
// tools/bench/node_modules/.cache and the compiler is only loaded on a cache miss.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const SOURCE_CONDITION = '@kpng/source';
const CACHE_DIR = fileURLToPath(new URL('../node_modules/.cache/ts-hooks/', import.meta.url));
const require = createRequire(import.meta.url);
const COMPILER_VERSION = JSON.parse(await readFile(require.resolve('typescript/package.json'), 'utf8')).version;
const COMPILER_OPTIONS_ID = 'esnext-es2022-verbatim-inline-maps-v1';
let compiler;

export async function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes(SOURCE_CONDITION)
    ? context.conditions
    : [...context.conditions, SOURCE_CONDITION];
  const withSource = { ...context, conditions };
  try {
    return await nextResolve(specifier, withSource);
  } catch (error) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && relative && specifier.endsWith('.js')) {
      return nextResolve(`${specifier.slice(0, -3)}.ts`, withSource);
    }
    throw error;
  }
}

async function transpile(fileName, source) {
  compiler ??= (await import('typescript')).default;
  return compiler.transpileModule(source, {
    fileName,
    compilerOptions: {
      module: compiler.ModuleKind.ESNext,
      target: compiler.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
      inlineSources: true,
    },
  }).outputText;
}

async function cachedTranspile(fileName, source) {
  const key = createHash('sha256')
    .update(`${COMPILER_VERSION}\0${COMPILER_OPTIONS_ID}\0${fileName}\0${source}`)
    .digest('hex');
  const path = `${CACHE_DIR}${key}.js`;
  try {
    return await readFile(path, 'utf8');
  } catch {
    const output = await transpile(fileName, source);
    try {
      await mkdir(CACHE_DIR, { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, output);
      await rename(temporary, path);
    } catch {
      // A read-only checkout only loses the cache.
    }
    return output;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return nextLoad(url, context);
  const fileName = fileURLToPath(url);
  const source = await readFile(fileName, 'utf8');
  return { format: 'module', source: await cachedTranspile(fileName, source), shortCircuit: true };
}
