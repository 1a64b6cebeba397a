#!/usr/bin/env node
/**
 * `kpng-ebpf`: the eBPF backend as a program. In-process (a core over a file or the API server,
 * one process, like kube-proxy) or split (`--connect`: consume a core's stream).
 */
import { backendProgram, runAsMain } from '@kpng/core/runtime';
import { backend } from './backend-module.js';

/** `main(argv, env, signal)`: `signal` stops the program (tests); SIGINT and SIGTERM always do. */
export const main = backendProgram(backend, new URL('../../package.json', import.meta.url));

await runAsMain(import.meta.url, () => main(process.argv.slice(2)));
