import { Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import type { RequestOptions } from 'node:https';
import type { RequestContext } from '@kubernetes/client-node';
import { KubeConfig } from './client-node-classes.js';
import type { RestClientMetrics } from '../../metrics/rest-client.js';
import type { Clock } from '../../util/clock.js';

/**
 * The seam where core's API-server traffic is measured. client-node builds a fresh HTTP agent for
 * every request, in exactly two places: `applyToFetchOptions` (watches, and our lists) and
 * `applySecurityAuthentication` (the generated API clients). Overriding both lets us wrap each
 * agent, and an agent sees each request it carries (`addRequest`) before it is sent, whatever
 * library sends it (node-fetch here).
 */
class InstrumentedKubeConfig extends KubeConfig {
  constructor(
    private readonly metrics: RestClientMetrics,
    private readonly clock: Clock,
  ) {
    super();
  }

  override async applyToFetchOptions(opts: RequestOptions) {
    const init = await super.applyToFetchOptions(opts);
    if (init.agent instanceof Agent) instrumentAgent(init.agent, this.metrics, this.clock);
    return init;
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const agent = context.getAgent();
    if (agent instanceof Agent) instrumentAgent(agent, this.metrics, this.clock);
  }
}

/** A copy of `source` (clusters, users, contexts, current context) whose requests are measured. */
export function instrumentKubeConfig(source: KubeConfig, metrics: RestClientMetrics, clock: Clock): KubeConfig {
  const kc = new InstrumentedKubeConfig(metrics, clock);
  kc.loadFromOptions({
    clusters: source.clusters,
    users: source.users,
    contexts: source.contexts,
    currentContext: source.currentContext,
  });
  return kc;
}

const instrumented = new WeakSet<Agent>();

/** `addRequest` is how a ClientRequest hands itself to its agent; Node has called it so since 0.x. */
type AgentWithAddRequest = Agent & { addRequest(req: ClientRequest, options: unknown): void };

export function instrumentAgent(agent: Agent, metrics: RestClientMetrics, clock: Clock): void {
  if (instrumented.has(agent)) return;
  instrumented.add(agent);
  const target = agent as AgentWithAddRequest;
  const addRequest = target.addRequest.bind(agent);
  target.addRequest = (req, options) => {
    observeRequest(req, metrics, clock);
    addRequest(req, options);
  };
}

function observeRequest(req: ClientRequest, metrics: RestClientMetrics, clock: Clock): void {
  const started = clock.monotonic();
  let observed = false;
  const finish = (status: number | undefined) => {
    if (observed) return;
    observed = true;
    const host = req.getHeader('host');
    const url = new URL(req.path, `${req.protocol}//${typeof host === 'string' ? host : req.host}`);
    metrics.observe({ method: req.method, url, status, durationSeconds: (clock.monotonic() - started) / 1000 });
  };
  req.once('response', (res: IncomingMessage) => finish(res.statusCode));
  // An error or a close before any response: client-go's `<error>`.
  req.once('error', () => finish(undefined));
  req.once('close', () => finish(undefined));
}
