/**
 * @kpng/core/entry: what a program's entry module needs before it knows what it will run, and
 * nothing heavier: running as the main module under the process fault policy, and the IP, CIDR and
 * `--vmodule` parsers its flag table validates with. It loads no metrics library, gRPC, API client
 * or source, so `--help` and `--version` answer with these few modules loaded (the compat binary's
 * entry test pins what it reaches). Everything here is also exported where its audience finds it
 * (`@kpng/core`, `@kpng/core/program`).
 */
export { runAsMain } from '../runtime/signals.js';
export { parseIP, parseCIDR, type CIDR, type IPAddress } from '../util/ip.js';
export { parseVModule, type VModuleRule } from '../util/vmodule.js';
