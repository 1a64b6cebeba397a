import { execFileSync } from 'node:child_process';

/** vitest global setup: the BPF objects the kernel suites load, compiled when missing or stale. */
export default function setup(): void {
  execFileSync(process.execPath, [new URL('../scripts/build-bpf.mjs', import.meta.url).pathname, '--stale'], {
    stdio: 'inherit',
  });
}
