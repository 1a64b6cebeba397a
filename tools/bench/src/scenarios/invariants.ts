import { cidrContains, cidrSize, parseCidr } from '../kube/ipv4.js';
import {
  MAX_ENDPOINTS_PER_SLICE,
  SERVICE_NAME_LABEL,
  TRIGGER_TIME_ANNOTATION,
  type KubeObject,
} from '../kube/types.js';
import { ADDRESS_PLAN } from './address-plan.js';
import { NODE_PORT_MAX, NODE_PORT_MIN } from './nodeports.js';
import type { Scenario } from './scenario.js';

const PODS = parseCidr(ADDRESS_PLAN.pods);
const SERVICES = parseCidr(ADDRESS_PLAN.services);
const NODES = parseCidr(ADDRESS_PLAN.nodes);
const LOAD_BALANCERS = parseCidr(ADDRESS_PLAN.loadBalancers);

function checkMeta(object: KubeObject, namespaced: boolean, problems: string[]): void {
  const m = object.metadata;
  const id = `${object.kind} ${m.namespace ?? ''}/${m.name}`;
  if (!object.apiVersion || !object.kind || !m.name) problems.push(`${id}: missing apiVersion, kind or metadata.name`);
  if (namespaced !== (m.namespace !== undefined && m.namespace !== ''))
    problems.push(`${id}: namespace is wrong for its kind`);
  if (!m.uid || !m.resourceVersion || Number.isNaN(Date.parse(m.creationTimestamp)))
    problems.push(`${id}: missing uid, resourceVersion or creationTimestamp`);
}

/**
 * Every rule a generated scenario must keep (address plan, unique NodePorts and service addresses,
 * slice size and labels, node references). Returns the violations; empty means valid.
 */
export function scenarioViolations(scenario: Scenario): string[] {
  const problems: string[] = [];
  const nodeZones = new Map<string, { zone: string | undefined; podCidr: string }>();
  for (const node of scenario.nodes) {
    checkMeta(node, false, problems);
    nodeZones.set(node.metadata.name, {
      zone: node.metadata.labels?.['topology.kubernetes.io/zone'],
      podCidr: node.spec.podCIDR,
    });
    const podCidr = parseCidr(node.spec.podCIDR);
    if (podCidr.base < PODS.base || podCidr.base + cidrSize(podCidr) > NODES.base) {
      problems.push(`Node ${node.metadata.name}: pod CIDR ${node.spec.podCIDR} outside the pod range`);
    }
    for (const a of node.status.addresses) {
      if (a.type === 'InternalIP' && !cidrContains(NODES, a.address))
        problems.push(`Node ${node.metadata.name}: address ${a.address} outside ${ADDRESS_PLAN.nodes}`);
    }
  }

  const nodePorts = new Set<number>();
  const frontends = new Set<string>();
  const services = new Map<string, { targetPorts: string }>();
  const claimNodePort = (port: number, id: string): void => {
    if (port < NODE_PORT_MIN || port > NODE_PORT_MAX)
      problems.push(`${id}: node port ${port} outside ${NODE_PORT_MIN}-${NODE_PORT_MAX}`);
    if (nodePorts.has(port)) problems.push(`${id}: node port ${port} used twice`);
    nodePorts.add(port);
  };
  for (const svc of scenario.services) {
    checkMeta(svc, true, problems);
    const id = `Service ${svc.metadata.namespace}/${svc.metadata.name}`;
    const s = svc.spec;
    services.set(`${svc.metadata.namespace}/${svc.metadata.name}`, {
      targetPorts: s.ports.map((p) => `${p.name}/${p.protocol}/${p.targetPort}`).join(','),
    });
    if (!cidrContains(SERVICES, s.clusterIP) || s.clusterIPs[0] !== s.clusterIP)
      problems.push(`${id}: ClusterIP ${s.clusterIP} outside ${ADDRESS_PLAN.services}`);
    const lbIPs = (svc.status.loadBalancer.ingress ?? []).map((i) => i.ip);
    for (const ip of lbIPs)
      if (!cidrContains(LOAD_BALANCERS, ip)) problems.push(`${id}: LB IP ${ip} outside ${ADDRESS_PLAN.loadBalancers}`);
    if ((s.type === 'LoadBalancer') !== lbIPs.length > 0)
      problems.push(`${id}: LB IPs must exist exactly on LoadBalancer Services`);
    for (const p of s.ports) {
      for (const ip of [s.clusterIP, ...lbIPs]) {
        const key = `${ip}/${p.protocol}/${p.port}`;
        if (frontends.has(key)) problems.push(`${id}: ${key} already used by another Service`);
        frontends.add(key);
      }
      if (s.type === 'ClusterIP' && p.nodePort !== undefined) problems.push(`${id}: ClusterIP Service with a nodePort`);
      if (s.type !== 'ClusterIP') {
        if (p.nodePort === undefined) problems.push(`${id}: port ${p.name} has no nodePort`);
        else claimNodePort(p.nodePort, id);
      }
    }
    if (s.externalTrafficPolicy === 'Local' && s.type !== 'LoadBalancer' && s.type !== 'NodePort')
      problems.push(`${id}: externalTrafficPolicy without NodePort/LoadBalancer`);
    if ((s.healthCheckNodePort !== undefined) !== (s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local')) {
      problems.push(
        `${id}: healthCheckNodePort must exist exactly on LoadBalancer Services with externalTrafficPolicy Local`,
      );
    }
    if (s.healthCheckNodePort !== undefined) claimNodePort(s.healthCheckNodePort, id);
  }

  const sliceNames = new Set<string>();
  const addressesByService = new Map<string, Set<string>>();
  for (const slice of scenario.endpointSlices) {
    checkMeta(slice, true, problems);
    const ns = slice.metadata.namespace ?? '';
    const id = `EndpointSlice ${ns}/${slice.metadata.name}`;
    if (sliceNames.has(`${ns}/${slice.metadata.name}`)) problems.push(`${id}: name used twice`);
    sliceNames.add(`${ns}/${slice.metadata.name}`);
    const serviceName = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    const service = services.get(`${ns}/${serviceName}`);
    if (!service) problems.push(`${id}: ${SERVICE_NAME_LABEL}=${serviceName} names no Service`);
    else if (service.targetPorts !== slice.ports.map((p) => `${p.name}/${p.protocol}/${p.port}`).join(','))
      problems.push(`${id}: ports differ from the Service's target ports`);
    if (Number.isNaN(Date.parse(slice.metadata.annotations?.[TRIGGER_TIME_ANNOTATION] ?? '')))
      problems.push(`${id}: no valid ${TRIGGER_TIME_ANNOTATION}`);
    if (slice.endpoints.length > MAX_ENDPOINTS_PER_SLICE)
      problems.push(`${id}: ${slice.endpoints.length} endpoints, more than ${MAX_ENDPOINTS_PER_SLICE}`);
    const seen = addressesByService.get(`${ns}/${serviceName}`) ?? new Set<string>();
    addressesByService.set(`${ns}/${serviceName}`, seen);
    for (const ep of slice.endpoints) {
      const address = ep.addresses[0] ?? '';
      const node = nodeZones.get(ep.nodeName ?? '');
      if (!node) problems.push(`${id}: endpoint ${address} on unknown node ${ep.nodeName}`);
      else {
        if (!cidrContains(parseCidr(node.podCidr), address))
          problems.push(`${id}: endpoint ${address} outside its node's pod CIDR ${node.podCidr}`);
        if (node.zone !== ep.zone)
          problems.push(`${id}: endpoint ${address} in zone ${ep.zone}, its node in ${node.zone}`);
      }
      if (seen.has(address)) problems.push(`${id}: endpoint ${address} appears twice in its Service`);
      seen.add(address);
      if (typeof ep.conditions?.ready !== 'boolean') problems.push(`${id}: endpoint ${address} has no ready condition`);
    }
  }
  return problems;
}
