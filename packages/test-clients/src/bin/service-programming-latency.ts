#!/usr/bin/env node
import { main } from '../clients/service-programming/main.js';

process.exit(await main(process.argv.slice(2)));
