// The workspace's ESLint config holds the package boundaries: each case lints a one-line file at a
// path inside the repository (text only; nothing is written) and checks which rule fires.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

// Type-aware rules need the file on disk in a tsconfig; these cases are about imports only.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'off',
      '@typescript-eslint/no-floating-promises': 'off',
    },
  },
});

async function rulesFired(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('lint: package boundaries', () => {
  const cases: { name: string; path: string; code: string; fires: string[] }[] = [
    {
      name: "a package imports another's sources",
      path: 'packages/nft/src/render/probe.ts',
      code: "import { GlobalModel } from '@kpng/core/src/model/global-model.js';\nexport const x = GlobalModel;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'a package imports build output',
      path: 'packages/kube-proxy/src/run/probe.ts',
      code: "import { backend } from '../../../nft/dist/public/index.js';\nexport const x = backend;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'the nftables library imports core',
      path: 'packages/nftables/src/probe.ts',
      code: "import { log } from '@kpng/core';\nexport const x = log;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'the nftables library imports the nft backend',
      path: 'packages/nftables/src/fake/probe.ts',
      code: "import { NftBackend } from '@kpng/nft';\nexport const x = NftBackend;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'the IPVS backend imports the nft backend',
      path: 'packages/ipvs/src/backend/probe.ts',
      code: "import { createNftMetrics } from '@kpng/nft';\nexport const x = createNftMetrics;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: "an IPVS test imports the nft backend's testing entry",
      path: 'packages/ipvs/test/probe.test.ts',
      code: "import { RulesetTracer } from '@kpng/nft/testing';\nexport const x = RulesetTracer;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'allowed: the nftables library tests use the lab',
      path: 'packages/nftables/src/probe.test.ts',
      code: "import { Lab } from '@kpng/lab';\nexport const x = Lab;\n",
      fires: [],
    },
    {
      name: 'the kit imports a package',
      path: 'packages/kit/src/probe.ts',
      code: "import { Registry } from 'prom-client';\nexport const x = Registry;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'allowed: the kit imports node: modules and its own files',
      path: 'packages/kit/src/probe.ts',
      code: "import { join } from 'node:path';\nimport { inNetns } from './netns.js';\nexport const x = [join, inNetns];\n",
      fires: [],
    },
    {
      name: "a package's runtime code imports the lab",
      path: 'packages/nft/src/backend/probe.ts',
      code: "import { Lab } from '@kpng/lab';\nexport const x = Lab;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: "a program's code imports its package's test folder",
      path: 'packages/core/src/sync/probe.ts',
      code: "import { aLocalService } from '../../test/support/local-state-fixtures.js';\nexport const x = aLocalService;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: "a program's code imports a testing entry",
      path: 'packages/nft/src/backend/probe.ts',
      code: "import { FakeClock } from '@kpng/core/testing';\nexport const x = FakeClock;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'allowed: a test imports its test folder and a testing entry',
      path: 'packages/core/src/sync/probe.test.ts',
      code: "import { aLocalService } from '../../test/support/local-state-fixtures.js';\nimport { ScriptedExecer } from '@kpng/kit/testing';\nexport const x = [aLocalService, ScriptedExecer];\n",
      fires: [],
    },
    {
      name: 'a type imported as a value',
      path: 'packages/core/src/model/probe.ts',
      code: "import { Registry } from 'prom-client';\nexport type R = Registry;\n",
      fires: ['@typescript-eslint/consistent-type-imports'],
    },
    {
      name: 'allowed: a test uses the lab, the nft backend uses core',
      path: 'packages/nft/test/probe.test.ts',
      code: "import { Lab } from '@kpng/lab';\nimport { log } from '@kpng/core';\nexport const x = [Lab, log];\n",
      fires: [],
    },
    {
      name: 'allowed: the nft backend uses core and the nftables library',
      path: 'packages/nft/src/backend/probe.ts',
      code: "import { log } from '@kpng/core';\nimport { NftError } from '@kpng/nftables';\nexport const x = [log, NftError];\n",
      fires: [],
    },
    {
      name: 'a tool starts a process with node:child_process',
      path: 'tools/release/src/oci/probe.ts',
      code: "import { spawnSync } from 'node:child_process';\nexport const x = spawnSync;\n",
      fires: ['@typescript-eslint/no-restricted-imports'],
    },
    {
      name: 'a test starts a process with child_process',
      path: 'packages/core/src/cli/probe.test.ts',
      code: "import { execFile } from 'child_process';\nexport const x = execFile;\n",
      fires: ['@typescript-eslint/no-restricted-imports'],
    },
    {
      name: 'allowed: the exec seam itself uses node:child_process',
      path: 'packages/kit/src/exec.ts',
      code: "import { spawn } from 'node:child_process';\nexport const x = spawn;\n",
      fires: [],
    },
    {
      name: 'a script (.mjs, not TypeScript) starts a process with node:child_process',
      path: 'tools/bench/scripts/probe.mjs',
      code: "import { spawnSync } from 'node:child_process';\nexport const x = spawnSync;\n",
      fires: ['no-restricted-imports'],
    },
    {
      name: 'allowed: a script named with its reason (npm test runs before any build) uses node:child_process',
      path: 'tools/scripts/test.mjs',
      code: "import { spawnSync } from 'node:child_process';\nexport const x = spawnSync;\n",
      fires: [],
    },
  ];
  it.each(cases)('$name', async ({ path, code, fires }) => {
    expect(await rulesFired(path, code)).toEqual(fires);
  });
});
