import { processExecer, runChecked } from '@kpng/kit';

/** vitest global setup: the BPF objects the kernel suites load, compiled when missing or stale. */
export default async function setup(): Promise<void> {
  const script = new URL('../scripts/build-bpf.mjs', import.meta.url).pathname;
  const { stdout, stderr } = await runChecked(processExecer, [process.execPath, script, '--stale']);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
}
