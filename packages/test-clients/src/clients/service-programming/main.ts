import {
  serviceProgrammingConfig,
  serviceProgrammingFlags,
  type ServiceProgrammingConfig,
} from '../../config/clients.js';
import { getObject, namespacedPath } from '../../kube/http.js';
import type { EndpointSlice, Service } from '../../kube/objects.js';
import { Reflector } from '../../kube/reflector.js';
import { serviceMetrics } from '../../metrics/client-metrics.js';
import { runClient, type ClientSpec, type RunDeps } from '../runner.js';
import { ServiceProgrammingClient } from './client.js';

export const serviceProgrammingSpec: ClientSpec<ServiceProgrammingConfig> = {
  program: 'service-programming-latency',
  flags: serviceProgrammingFlags,
  configure: serviceProgrammingConfig,
  create(config, env) {
    const { kubeConfig, clock, logger } = env;
    const slices = new Reflector<EndpointSlice>({
      kind: 'EndpointSlice',
      kubeConfig,
      path: namespacedPath('discovery.k8s.io/v1', config.serviceNamespace, 'endpointslices'),
      labelSelector: `kubernetes.io/service-name=${config.serviceName}`,
      clock,
      logger,
    });
    const servicePath = namespacedPath('core', config.serviceNamespace, 'services', config.serviceName);
    return new ServiceProgrammingClient(
      {
        serviceNamespace: config.serviceNamespace,
        serviceName: config.serviceName,
        servicePort: config.servicePort,
        nodeIP: config.nodeIP,
        match: config.match,
        maxMeasurements: config.maxMeasurements,
        connectionsPerAttempt: config.connectionsPerAttempt,
        probe: config.probe,
        slices,
        getService: (signal) => getObject<Service>(kubeConfig, servicePath, signal),
        metrics: serviceMetrics(env.registry),
      },
      env,
    );
  },
};

export function main(argv: readonly string[], deps?: RunDeps): Promise<number> {
  return runClient(serviceProgrammingSpec, argv, deps);
}
