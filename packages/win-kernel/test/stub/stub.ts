/**
 * Builds hcn-stub.c into a shared library (with the system C compiler, into a temporary folder)
 * and drives it: script HNS's answers, read back every call's arguments as raw bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSyncChecked } from '@kpng/kit';
import koffi from 'koffi';

export interface RecordedCall {
  readonly name: string;
  readonly args: readonly Buffer[];
}

export class HcnStub {
  readonly path: string;
  readonly #dir: string;
  readonly #fn: Record<string, (...args: unknown[]) => unknown>;
  readonly #lib: ReturnType<typeof koffi.load>;

  private constructor(dir: string, path: string) {
    this.#dir = dir;
    this.path = path;
    this.#lib = koffi.load(path);
    const lib = this.#lib;
    this.#fn = {
      reset: lib.func('void stub_reset(void)'),
      script: lib.func('int stub_script(const char *name, int32_t hr, const char16_t *out, const char16_t *err)'),
      calls: lib.func('int stub_calls(void)'),
      name: lib.func('const char *stub_call_name(int i)'),
      argc: lib.func('int stub_call_argc(int i)'),
      arg: lib.func('int stub_call_arg(int i, int j, _Out_ uint8_t *buf, int cap)'),
      live: lib.func('int stub_live_strings(void)'),
      handles: lib.func('int stub_open_handles(void)'),
    };
  }

  /** Compiles the stub; fails (never skips) without a C compiler: CI installs one. */
  static build(): HcnStub {
    const dir = mkdtempSync(join(tmpdir(), 'kpng-hcn-stub-'));
    const out = join(dir, 'libhcnstub.so');
    const source = join(import.meta.dirname, 'hcn-stub.c');
    try {
      runSyncChecked([process.env['CC'] ?? 'cc', '-shared', '-fPIC', '-O1', '-o', out, source]);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`building the HCN stub library needs a C compiler (cc, or $CC): ${(e as Error).message}`);
    }
    return new HcnStub(dir, out);
  }

  reset(): void {
    this.#fn['reset']!();
  }

  /** The next call of `fn` returns `hr`, with these output string and error record. */
  answer(fn: string, hr: number, out: string | null = null, errorRecord: string | null = null): void {
    this.#fn['script']!(fn, hr | 0, out, errorRecord);
  }

  calls(): RecordedCall[] {
    const n = this.#fn['calls']!() as number;
    const out: RecordedCall[] = [];
    for (let i = 0; i < n; i++) {
      const argc = this.#fn['argc']!(i) as number;
      const args: Buffer[] = [];
      for (let j = 0; j < argc; j++) {
        const buf = Buffer.alloc(64 * 1024);
        const len = this.#fn['arg']!(i, j, buf, buf.length) as number;
        args.push(buf.subarray(0, len));
      }
      out.push({ name: this.#fn['name']!(i) as string, args });
    }
    return out;
  }

  /** Strings the stub handed out that were not released with CoTaskMemFree. */
  liveStrings(): number {
    return this.#fn['live']!() as number;
  }

  openHandles(): number {
    return this.#fn['handles']!() as number;
  }

  dispose(): void {
    this.#lib.unload();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** A NUL-terminated UTF-16LE string, as HCN receives it. */
export const wide = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf16le');
/** A handle value as the stub records it (pointer-sized, little-endian). */
export const handle = (value: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(value));
  return b;
};
/** An out-parameter the caller provided. */
export const OUT = Buffer.from([1]);
