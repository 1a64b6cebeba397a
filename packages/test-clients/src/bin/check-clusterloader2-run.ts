#!/usr/bin/env node
import { checkMain } from '../check/main.js';

process.exit(await checkMain(process.argv.slice(2)));
