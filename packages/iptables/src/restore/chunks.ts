/**
 * Restore text gathered into large writes: a Service's text is a few hundred bytes, and a pipe
 * write per piece would be thousands of system calls per sync. A pipe holds 64 KiB; a write of
 * more is taken in by Node and drained as the process reads.
 */
export const CHUNK_BYTES = 64 * 1024;

export class Chunks {
  readonly #write: (chunk: string) => void;
  readonly #size: number;
  #pending: string[] = [];
  #length = 0;

  constructor(write: (chunk: string) => void, size = CHUNK_BYTES) {
    this.#write = write;
    this.#size = size;
  }

  add(text: string): void {
    if (text === '') return;
    this.#pending.push(text);
    this.#length += text.length;
    if (this.#length >= this.#size) this.flush();
  }

  flush(): void {
    if (this.#length === 0) return;
    this.#write(this.#pending.length === 1 ? (this.#pending[0] as string) : this.#pending.join(''));
    this.#pending = [];
    this.#length = 0;
  }
}
