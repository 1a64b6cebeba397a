#!/usr/bin/env node
import { main } from '../clients/policy-creation/main.js';

process.exit(await main(process.argv.slice(2)));
