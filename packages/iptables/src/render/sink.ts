/**
 * Where a Service's rendered lines go. The backend renders straight into restore text
 * (`ServiceText`): 100k+ lines at s10k, and a string per line kept in arrays, grouped per chain
 * and joined later, cost about as much again as rendering them. `RenderedService` (lines per
 * table and chain) is the readable form for the public API and tests, built through the same sink.
 */
import type { RenderedService } from './types.js';

export interface RuleSink {
  /** A line of a top-level filter chain. */
  filter(line: string): void;
  /** A line of a top-level nat chain (KUBE-SERVICES, KUBE-NODEPORTS). */
  nat(line: string): void;
  /** A line of the Service's own nat chain `chain` (declared in the order chains first get a line). */
  rule(chain: string, line: string): void;
}

/** Lines as arrays: `RenderedService`. */
export class LineSink implements RuleSink {
  readonly #filter: string[] = [];
  readonly #nat: string[] = [];
  readonly #chains = new Map<string, string[]>();
  readonly rendered: RenderedService = { filter: this.#filter, nat: this.#nat, chains: this.#chains };

  filter(line: string): void {
    this.#filter.push(line);
  }

  nat(line: string): void {
    this.#nat.push(line);
  }

  rule(chain: string, line: string): void {
    let lines = this.#chains.get(chain);
    if (lines === undefined) this.#chains.set(chain, (lines = []));
    lines.push(line);
  }
}

/**
 * Lines as restore text: joined once per Service (an array joined costs a fifth of the same text
 * built with `+=`, whose ropes are copied again when flattened).
 */
export class ServiceText implements RuleSink {
  readonly #filter: string[] = [];
  readonly #nat: string[] = [];
  /** The Service's own chains in first-line order, and each one's lines. */
  readonly names: string[] = [];
  readonly #chains: string[][] = [];
  readonly #byName = new Map<string, string[]>();
  /** The chain last written: an endpoint's two lines, a spread's lines go to the same chain in a row. */
  #lastName = '';
  #lastLines: string[] = [];
  ruleLines = 0;

  filter(line: string): void {
    this.#filter.push(line);
  }

  nat(line: string): void {
    this.#nat.push(line);
  }

  rule(chain: string, line: string): void {
    this.ruleLines++;
    if (chain !== this.#lastName) {
      let lines = this.#byName.get(chain);
      if (lines === undefined) {
        this.#byName.set(chain, (lines = []));
        this.names.push(chain);
        this.#chains.push(lines);
      }
      this.#lastName = chain;
      this.#lastLines = lines;
    }
    this.#lastLines.push(line);
  }

  get filterLines(): number {
    return this.#filter.length;
  }

  get natLines(): number {
    return this.#nat.length;
  }

  get filterText(): string {
    return joined(this.#filter);
  }

  get natText(): string {
    return joined(this.#nat);
  }

  /** Every chain's lines, chain after chain (in `names` order). */
  get rulesText(): string {
    if (this.#chains.length === 1) return joined(this.#chains[0] as string[]);
    const all: string[] = [];
    for (const lines of this.#chains) for (const line of lines) all.push(line);
    return joined(all);
  }
}

function joined(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
