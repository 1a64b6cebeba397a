// A PATH shim directory for a program under test: its `nft`, `iptables-restore` and
// `ip6tables-restore` log every call, then run the real binary, fail (exit 1 with an error, as a
// kernel that refuses the transaction) or hang (sleep, then run the real binary), per the mode
// the test sets. Only writes are affected (`nft -f`, every restore); reads pass through, so what
// fails is the kernel write, not the program's checks (`--check` and `--test` dry runs pass too).
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked } from '../netns/run.js';

const BINARIES = ['nft', 'iptables-restore', 'ip6tables-restore'] as const;

export type ShimMode =
  | { readonly kind: 'pass' }
  | { readonly kind: 'fail' }
  /** As a shell reports a binary it cannot find (exit 127). */
  | { readonly kind: 'missing' }
  | { readonly kind: 'hang'; readonly seconds: number };

export interface KernelShim {
  /** Prepend to the program's PATH. */
  readonly dir: string;
  set(mode: ShimMode): Promise<void>;
  /** Every write call so far, in order: `binary mode args... | N lines: first lines @epoch-ms`. */
  writes(): Promise<string[]>;
  remove(): Promise<void>;
}

/** `mode` file: `pass`, `fail`, `missing` or `hang SECONDS`; `log`: one line per write call. */
function script(real: string, dir: string): string {
  return `#!/bin/sh
# kpng fault suite shim for ${real}
write=1
case "$(basename "$0")" in nft) write=0; for a in "$@"; do [ "$a" = "-f" ] && write=1; done;; esac
for a in "$@"; do case "$a" in -c|--check|--test|-t) write=0;; esac; done
[ "$write" = 1 ] || exec ${real} "$@"
mode=$(cat ${dir}/mode)
in=$(mktemp ${dir}/in.XXXXXX)
cat > "$in"
echo "$(basename "$0") $mode $* | $(wc -l < "$in") lines: $(grep -v '^#' "$in" | head -n 3 | tr '\n' ';' | cut -c 1-160) @$(date +%s%3N)" >> ${dir}/log
case "$mode" in
  fail) rm -f "$in"; echo "$(basename "$0"): injected failure (kpng fault suite): Operation not permitted" >&2; exit 1;;
  missing) rm -f "$in"; echo "sh: 1: $(basename "$0"): not found" >&2; exit 127;;
  # The sleep does not hold the shim's output open: a program that kills the shim (its write
  # timeout) would otherwise wait for the orphaned sleep to end before it saw the shim's.
  hang*) sleep "\${mode#hang }" </dev/null >/dev/null 2>&1;;
esac
${real} "$@" < "$in"
code=$?
rm -f "$in"
exit $code
`;
}

export async function createKernelShim(): Promise<KernelShim> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-fault-shim-'));
  await writeFile(join(dir, 'mode'), 'pass');
  await writeFile(join(dir, 'log'), '');
  for (const binary of BINARIES) {
    const real = (await runChecked(['sh', '-c', `command -v ${binary}`])).stdout.trim();
    await writeFile(join(dir, binary), script(real, dir));
    await chmod(join(dir, binary), 0o755);
  }
  return {
    dir,
    set: (mode) => writeFile(join(dir, 'mode'), mode.kind === 'hang' ? `hang ${mode.seconds}` : mode.kind),
    writes: async () => (await readFile(join(dir, 'log'), 'utf8')).split('\n').filter((l) => l !== ''),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
