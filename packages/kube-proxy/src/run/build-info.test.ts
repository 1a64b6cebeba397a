import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerBuildInfo } from './build-info.js';

describe('kubernetes_build_info', () => {
  it('is 1, labelled with the reported version as component-base labels it', async () => {
    const registry = new Registry();
    registerBuildInfo(registry, 'v1.31.2');
    const text = await registry.metrics();
    expect(text).toContain("# HELP kubernetes_build_info [ALPHA] A metric with a constant '1' value");
    expect(text).toMatch(
      /^kubernetes_build_info\{major="1",minor="31",git_version="v1\.31\.2",git_commit="",git_tree_state="",build_date="",go_version="",compiler="kpng",platform="linux\/\w+"\} 1$/m,
    );
  });
});
