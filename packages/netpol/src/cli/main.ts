#!/usr/bin/env node
/**
 * `kpng-netpol`: the NetworkPolicy enforcer as a program, with its own in-process core over the API
 * server (it watches Pods, Namespaces and NetworkPolicies besides what every core watches).
 */
import { backendProgram, runAsMain } from '@kpng/core/runtime';
import { backend } from './backend-module.js';

/** `main(argv, env, signal)`: `signal` stops the program (tests); SIGINT and SIGTERM always do. */
export const main = backendProgram(backend, new URL('../../package.json', import.meta.url));

await runAsMain(import.meta.url, () => main(process.argv.slice(2)));
