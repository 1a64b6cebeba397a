// `node --import tools/bench/scripts/register-ts.mjs file.ts`: the same TypeScript hooks as
// `npm run bench`, for processes a suite starts itself (the ipvs suite's guest in the lab's VM).
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
