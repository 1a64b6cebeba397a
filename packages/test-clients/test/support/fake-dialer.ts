import type { DialRequest, DialResult, Dialer } from '../../src/probe/dialer.js';
import { sleep, type Clock } from '../../src/util/clock.js';

/** What a fake target does with a connection attempt made at `now`. */
export type Behaviour =
  | { readonly kind: 'answer'; readonly reply?: string }
  | { readonly kind: 'refuse' }
  | { readonly kind: 'drop' }
  /** Never answers and ignores the attempt timeout: only an abort ends the dial (a dialer slow to time out). */
  | { readonly kind: 'silent' };

/**
 * A dialer over a FakeClock: each `host:port` behaves as its rule says at the moment of the
 * attempt. Answers and refusals take `rttMs`; drops take the whole attempt timeout.
 */
export class FakeDialer implements Dialer {
  readonly attempts: { readonly host: string; readonly port: number; readonly at: number; readonly send?: string }[] =
    [];
  #open = 0;
  /** The most dials that were in progress at once. */
  maxConcurrent = 0;
  private readonly rules = new Map<string, (now: number) => Behaviour>();
  #startLagMs = 0;
  #readLagMs = 0;

  /**
   * A dialer in another process, or on a busy event loop: the connection really starts `startMs`
   * after the request (the behaviour is the one at that moment, the attempt timeout runs from
   * there), and its verdict, stamped (`at`) when decided, reaches the caller `readMs` later.
   */
  lag(startMs: number, readMs: number): this {
    this.#startLagMs = startMs;
    this.#readLagMs = readMs;
    return this;
  }

  constructor(
    private readonly clock: Clock,
    private readonly rttMs = 1,
    private readonly fallback: Behaviour = { kind: 'refuse' },
  ) {}

  /** Sets how `host:port` behaves: a fixed behaviour or one that depends on the time. */
  on(host: string, port: number, rule: Behaviour | ((now: number) => Behaviour)): this {
    this.rules.set(`${host}:${port}`, typeof rule === 'function' ? rule : () => rule);
    return this;
  }

  /** Answers from `at` on (`reply` when given); before that, `before` (refuse by default). */
  answersFrom(host: string, port: number, at: number, reply?: string, before: Behaviour = { kind: 'refuse' }): this {
    return this.on(host, port, (now) =>
      now >= at ? { kind: 'answer', ...(reply !== undefined ? { reply } : {}) } : before,
    );
  }

  attemptsTo(host: string): number {
    return this.attempts.filter((a) => a.host === host).length;
  }

  async dial(request: DialRequest): Promise<DialResult> {
    if (this.#startLagMs > 0) await sleep(this.clock, this.#startLagMs);
    const now = this.clock.now();
    this.attempts.push({
      host: request.host,
      port: request.port,
      at: now,
      ...(request.send !== undefined ? { send: request.send } : {}),
    });
    const behaviour = (this.rules.get(`${request.host}:${request.port}`) ?? (() => this.fallback))(now);
    this.maxConcurrent = Math.max(this.maxConcurrent, ++this.#open);
    try {
      if (behaviour.kind === 'silent') {
        await new Promise<void>((resolve) =>
          request.signal?.aborted
            ? resolve()
            : request.signal?.addEventListener('abort', () => resolve(), { once: true }),
        );
        return { ok: false, error: 'aborted' };
      }
      const result = await this.#answer(request, behaviour);
      if (this.#readLagMs === 0) return result;
      const at = this.clock.now();
      await sleep(this.clock, this.#readLagMs);
      return { ...result, at };
    } finally {
      this.#open -= 1;
    }
  }

  async #answer(request: DialRequest, behaviour: Exclude<Behaviour, { kind: 'silent' }>): Promise<DialResult> {
    const wait = behaviour.kind === 'drop' ? request.timeoutMs : Math.min(this.rttMs, request.timeoutMs);
    await sleep(this.clock, wait, request.signal);
    if (request.signal?.aborted) return { ok: false, error: 'aborted' };
    if (behaviour.kind === 'drop' || (behaviour.kind === 'answer' && this.rttMs > request.timeoutMs))
      return { ok: false, error: 'timeout' };
    if (behaviour.kind === 'refuse') return { ok: false, error: 'refused' };
    if (!request.readReply) return { ok: true };
    return behaviour.reply === undefined ? { ok: false, error: 'timeout' } : { ok: true, reply: behaviour.reply };
  }
}
