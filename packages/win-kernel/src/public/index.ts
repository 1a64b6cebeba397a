/**
 * @kpng/win-kernel: the Windows HNS backend. Every export is listed by name; this file is the
 * contract. The HCN layer alone is `@kpng/win-kernel/hcn`; the fake HNS and fixtures are
 * `@kpng/win-kernel/testing`.
 */
export { HcnError, isNotFound, type Hns } from '../hcn/index.js';
