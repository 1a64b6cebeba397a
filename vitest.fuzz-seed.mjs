// A vitest setup file (vitest.shared.ts): the seed of every fast-check property in `npm test`.
// Fixed by default, so every run, CI's included, checks the same generated cases and a landing
// never hinges on a case drawn by chance; a new seed is how new cases are explored:
// KPNG_FUZZ_SEED=<integer> runs another fixed set, KPNG_FUZZ_SEED=random a fresh one per run
// (fast-check prints the seed and the shrunk counterexample of a failure, to replay it).
import fc from 'fast-check';

const FIXED_SEED = 20261127;
const raw = process.env.KPNG_FUZZ_SEED;
if (raw !== 'random') {
  const seed = raw === undefined || raw === '' ? FIXED_SEED : Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`KPNG_FUZZ_SEED: an integer or "random", not ${JSON.stringify(raw)}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
