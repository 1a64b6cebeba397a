/** @kpng/ipvs/testing: the in-memory IPVS table and the cases that keep it faithful to the kernel. */
export { FakeIpvs, KERNEL_SCHEDULERS } from '../ipvs/fake-ipvs.js';
export { IPVS_CASES, runIpvsCase, type IpvsCase } from '../ipvs/ipvs-cases.js';
