// The held connection of the kill -9 cases (the native fault suite's and the IPVS VM's): a line
// exchanged every ~100 ms through the proxy's rules while the proxy dies and restarts. The rules
// are the kernel's, so every line must come back, from the same server, on the same connection.
import type { HeldConnection } from '../netns/index.js';

export interface Exchanged {
  /** Lines echoed as expected. */
  readonly exchanges: number;
  /** Each unexpected answer or error, as received. */
  readonly failures: readonly string[];
  /** The longest time between two echoed lines, in ms. */
  readonly maxGapMs: number;
}

/** Exchanges `line-N` on `held` every ~100 ms until `until` settles; `server` is who must answer (`<server> line-N`). */
export async function keepExchanging(
  held: HeldConnection,
  until: Promise<unknown>,
  server: string,
): Promise<Exchanged> {
  let done = false;
  void until.finally(() => (done = true));
  const failures: string[] = [];
  let exchanges = 0;
  let last = Date.now();
  let maxGapMs = 0;
  for (let i = 0; !done && i < 100_000; i++) {
    const answer = await held.exchange(`line-${i}`).catch((e: Error) => `error ${e.message}`);
    if (answer === `${server} line-${i}`) {
      exchanges++;
      maxGapMs = Math.max(maxGapMs, Date.now() - last);
      last = Date.now();
    } else failures.push(answer);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { exchanges, failures, maxGapMs };
}
