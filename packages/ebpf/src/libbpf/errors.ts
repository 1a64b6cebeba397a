import { constants } from 'node:os';

const NAMES = new Map<number, string>(Object.entries(constants.errno).map(([name, value]) => [value, name]));

/** A libbpf or bpf() call the kernel refused, with its errno kept. */
export class BpfError extends Error {
  readonly code: string;
  constructor(
    readonly operation: string,
    readonly errno: number,
  ) {
    const code = NAMES.get(errno) ?? `errno ${errno}`;
    super(`${operation}: ${code}`);
    this.name = 'BpfError';
    this.code = code;
  }
}
