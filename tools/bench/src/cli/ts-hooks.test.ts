import { describe, expect, it } from 'vitest';

interface ResolveContext {
  conditions: string[];
}
interface Hooks {
  resolve(
    specifier: string,
    context: ResolveContext,
    next: (s: string, c: ResolveContext) => Promise<unknown>,
  ): Promise<unknown>;
  load(
    url: string,
    context: object,
    next: (url: string) => Promise<unknown>,
  ): Promise<{ format: string; source: string }>;
}
// A plain .mjs without types, so import it through a variable.
const hooksPath = '../../scripts/ts-hooks.mjs';
const hooks = (await import(/* @vite-ignore */ hooksPath)) as Hooks;

describe('ts-hooks (the loader behind npm run bench)', () => {
  it('adds the @kpng/source condition so workspace packages resolve to their TypeScript sources', async () => {
    let seen: string[] = [];
    await hooks.resolve('@kpng/core', { conditions: ['node', 'import'] }, async (_s, c) => {
      seen = c.conditions;
      return { url: 'file:///x.ts' };
    });
    expect(seen).toEqual(['node', 'import', '@kpng/source']);
  });

  it('retries a missing relative .js import as .ts, and only that', async () => {
    const notFound = Object.assign(new Error('missing'), { code: 'ERR_MODULE_NOT_FOUND' });
    const tried: string[] = [];
    const next = async (s: string): Promise<unknown> => {
      tried.push(s);
      if (s.endsWith('.js')) throw notFound;
      return { url: `file:///${s}` };
    };
    await hooks.resolve('./model/types.js', { conditions: [] }, next);
    expect(tried).toEqual(['./model/types.js', './model/types.ts']);
    await expect(hooks.resolve('some-package/x.js', { conditions: [] }, next)).rejects.toThrow('missing');
  });

  it('transpiles TypeScript to an ES module, dropping type-only imports', async () => {
    const url = new URL('../runner/ratio.ts', import.meta.url).href;
    const loaded = await hooks.load(url, {}, async () => {
      throw new Error('should not defer a .ts file');
    });
    expect(loaded.format).toBe('module');
    expect(loaded.source).toContain('export function ratio(');
    expect(loaded.source).not.toMatch(/import type|: Measurement/);
  });

  it('leaves JavaScript to Node', async () => {
    const result = await hooks.load('file:///x.mjs', {}, async (url) => ({
      format: 'module',
      source: `deferred ${url}`,
    }));
    expect(result.source).toBe('deferred file:///x.mjs');
  });
});
