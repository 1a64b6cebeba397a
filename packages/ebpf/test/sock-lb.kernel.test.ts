// Kernel test: the socket load balancer's cases (sock-lb.cases.ts) on this machine's kernel. The
// same cases run in the lab VM's 6.1 kernel: kernel-6.1.vm.test.ts.
import { kernelE2e } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sockLbSuite } from './sock-lb.cases.js';

const e2e = await kernelE2e('ebpf socket load balancer');
const suite = sockLbSuite(expect);

describe.skipIf(!e2e.run)(suite.title, () => {
  beforeAll(suite.beforeAll ?? (() => undefined));
  afterAll(suite.afterAll ?? (() => undefined));
  for (const c of suite.cases) it(c.name, c.run);
});
