#!/usr/bin/env node
import { runAsMain } from '@kpng/core/program';
import { main } from '../clients/service-programming/main.js';

await runAsMain(import.meta.url, () => main(process.argv.slice(2)));
