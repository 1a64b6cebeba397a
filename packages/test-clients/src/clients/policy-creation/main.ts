import { policyCreationConfig, policyCreationFlags, type PolicyCreationConfig } from '../../config/clients.js';
import { getObject, namespacedPath } from '../../kube/http.js';
import type { KubeObject, Pod } from '../../kube/objects.js';
import { Reflector } from '../../kube/reflector.js';
import { policyMetrics } from '../../metrics/client-metrics.js';
import { runClient, type ClientSpec, type RunDeps } from '../runner.js';
import { PolicyCreationClient } from './client.js';
import { PolicyTracker } from './policy-tracker.js';

export const policyCreationSpec: ClientSpec<PolicyCreationConfig> = {
  program: 'policy-creation-enforcement-latency',
  flags: policyCreationFlags,
  configure: policyCreationConfig,
  create(config, env) {
    const { kubeConfig, clock, logger } = env;
    const policiesPath = namespacedPath('networking.k8s.io/v1', config.targets.hostNamespace, 'networkpolicies');
    const policies = new PolicyTracker({
      allowPolicyName: config.allowPolicyName,
      denyPolicyName: config.denyPolicyName,
      policies: new Reflector<KubeObject>({ kind: 'NetworkPolicy', kubeConfig, path: policiesPath, clock, logger }),
      getPolicy: (name, signal) =>
        getObject<KubeObject>(kubeConfig, `${policiesPath}/${encodeURIComponent(name)}`, signal),
      clock,
      logger,
    });
    const pods = new Reflector<Pod>({
      kind: 'Pod',
      kubeConfig,
      path: namespacedPath('core', config.targets.targetNamespace, 'pods'),
      labelSelector: config.targets.targetLabelSelector,
      clock,
      logger,
    });
    return new PolicyCreationClient(
      {
        targets: config.targets,
        probe: config.probe,
        allowPolicyName: config.allowPolicyName,
        measureDeletion: config.measurePolicyDeletion,
        pods,
        policies,
        metrics: policyMetrics(env.registry, config.probe.mode, { measureDeletion: config.measurePolicyDeletion }),
      },
      env,
    );
  },
};

export function main(argv: readonly string[], deps?: RunDeps): Promise<number> {
  return runClient(policyCreationSpec, argv, deps);
}
