import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineBackend } from './backend-module.js';
import { loadBackendModule } from './load-backend-module.js';
import { logBackend } from './log-backend.js';

const fake = defineBackend<string>({
  name: 'fake',
  program: 'kpng-fake',
  proxyMode: 'fake',
  summary: 'a backend module for this test',
  flags: {},
  parseFlags: () => 'options',
  create: () => ({ name: 'fake', families: ['IPv4'], sync: async () => {}, cleanup: async () => {} }),
});

/** An importer recording what it was asked for, answering `answer`. */
function importer(answer: (specifier: string) => unknown) {
  const asked: string[] = [];
  return {
    asked,
    importModule: async (specifier: string) => (asked.push(specifier), answer(specifier)),
  };
}

describe('loadBackendModule', () => {
  it('resolves a short name to its @kpng package, a package name as is, a path to a file URL, through the importer', async () => {
    const i = importer(() => ({ backend: fake }));
    await expect(loadBackendModule('nft', i.importModule)).resolves.toBe(fake);
    await expect(loadBackendModule('@other/backend', i.importModule)).resolves.toBe(fake);
    await expect(loadBackendModule('./my-backend.js', i.importModule)).resolves.toBe(fake);
    expect(i.asked).toEqual(['@kpng/nft', '@other/backend', pathToFileURL(resolve('./my-backend.js')).href]);
  });

  it('`log` is the log backend of core itself, imported from nowhere', async () => {
    const i = importer(() => {
      throw new Error('not asked');
    });
    await expect(loadBackendModule('log', i.importModule)).resolves.toBe(logBackend);
    expect(i.asked).toEqual([]);
  });

  it('a module that cannot load, or exports no backend module, is a one-line error naming it', async () => {
    const missing = importer(() => {
      throw new Error('Cannot find package\nstack line');
    });
    await expect(loadBackendModule('no-such', missing.importModule)).rejects.toThrow(
      /^cannot load @kpng\/no-such: Cannot find package$/,
    );
    const empty = importer(() => ({ backend: { create: () => undefined } }));
    await expect(loadBackendModule('empty', empty.importModule)).rejects.toThrow(
      '@kpng/empty does not export a backend module',
    );
  });

  it('by default imports from core itself (a real package: node:os exports no backend module)', async () => {
    await expect(loadBackendModule('node:os')).rejects.toThrow('node:os does not export a backend module');
  });
});
