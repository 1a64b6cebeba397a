import { podCreationConfig, podCreationFlags, type PodCreationConfig } from '../../config/clients.js';
import { namespacedPath } from '../../kube/http.js';
import type { Pod } from '../../kube/objects.js';
import { Reflector } from '../../kube/reflector.js';
import { podCreationMetrics } from '../../metrics/client-metrics.js';
import { runClient, type ClientSpec, type RunDeps } from '../runner.js';
import { PodCreationClient } from './client.js';

export const podCreationSpec: ClientSpec<PodCreationConfig> = {
  program: 'pod-creation-reachability-latency',
  flags: podCreationFlags,
  configure: podCreationConfig,
  create(config, env) {
    const pods = new Reflector<Pod>({
      kind: 'Pod',
      kubeConfig: env.kubeConfig,
      path: namespacedPath('core', config.targets.targetNamespace, 'pods'),
      labelSelector: config.targets.targetLabelSelector,
      clock: env.clock,
      logger: env.logger,
    });
    return new PodCreationClient(
      {
        targets: config.targets,
        probe: config.probe,
        pods,
        metrics: podCreationMetrics(env.registry, config.probe.mode),
      },
      env,
    );
  },
};

export function main(argv: readonly string[], deps?: RunDeps): Promise<number> {
  return runClient(podCreationSpec, argv, deps);
}
