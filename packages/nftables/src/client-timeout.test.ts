import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createNftClient } from './client.js';
import { isTimeout } from './errors.js';

// A stand-in `nft` (no kernel is touched): it answers the capability probes, and a transaction
// (`-f -`) records its shell's pid, then hangs while the `hang` file exists. The sleep does not
// hold the script's output open: without a shell, the client kills only the script (as it would
// kill nft), and an orphan holding the pipes would keep the result waiting.
const FAKE_NFT = `#!/bin/sh
if [ "$1" = "-i" ]; then
  # nft -i: a transaction is an include line (recorded as this process's pid, hung as -f is); any
  # other line (the client's end marker) gets nft's syntax error, the line echoed.
  while IFS= read -r line; do
    case "$line" in
      include*) echo "$$" >> "$(dirname "$0")/shells"
        [ -e "$(dirname "$0")/hang" ] && sleep 30 </dev/null >/dev/null 2>&1;;
      *) printf 'Error: syntax error\\n%s\\n^\\n' "$line";;
    esac
  done
  exit 0
fi
case "$*" in
  --version) echo "nftables v1.0.6 (Lester Gooch #5)"; exit 0;;
  --check*) cat >/dev/null; exit 0;;
esac
echo "$PPID" >> "$(dirname "$0")/shells"
[ -e "$(dirname "$0")/hang" ] && sleep 30 </dev/null >/dev/null 2>&1
cat >/dev/null
`;

describe('NftClient timeoutMs', () => {
  let dir: string;
  let nftPath: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kpng-nft-timeout-test-'));
    nftPath = join(dir, 'nft');
    await writeFile(nftPath, FAKE_NFT);
    await chmod(nftPath, 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test.each([
    ['shell', true, false],
    ['process', false, false],
    ['interactive', true, true],
  ] as const)(
    'kills a hung nft -f after timeoutMs with a timeout error; the next command runs (%s)',
    async (_how, shell, interactive) => {
      await rm(join(dir, 'shells'), { force: true });
      // The deadline is the behaviour under test; it also bounds the capability probe (`nft --version`),
      // which took more than 300 ms on a loaded 2-core machine: 2 s, well under the 30 s hang.
      const client = await createNftClient({ nftPath, shell, interactive, timeoutMs: 2_000 });
      try {
        const tx = () => {
          const t = client.newTransaction();
          t.add({ kind: 'table', family: 'ip', name: 'kpng' });
          return t;
        };
        await client.run(tx());
        await writeFile(join(dir, 'hang'), '');
        const started = Date.now();
        const error: unknown = await client.run(tx()).catch((e: unknown) => e);
        expect(isTimeout(error), String(error)).toBe(true);
        expect((error as Error).message).toMatch(/nft -f - did not finish within 2000 ms: killed/);
        expect(Date.now() - started).toBeLessThan(10_000); // killed, not waited for (the hang is 30 s)
        await rm(join(dir, 'hang'));
        await client.run(tx());
        const recorded = (await readFile(join(dir, 'shells'), 'utf8')).trim().split('\n');
        // nft -i also recorded the client's probe (an empty transaction) first.
        expect(recorded).toHaveLength(interactive ? 4 : 3);
        const shells = recorded.slice(-3);
        // The killed shell or nft -i (and the sleep it ran) is gone; the next command got a new one.
        if (shell) {
          expect(shells[0]).toBe(shells[1]);
          expect(shells[2]).not.toBe(shells[1]);
          expect(() => process.kill(Number(shells[1]), 0)).toThrow();
        }
      } finally {
        await client.close();
      }
    },
  );
});
