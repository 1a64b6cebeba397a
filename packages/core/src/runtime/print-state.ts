import { endpointString } from '../nodeview/ip.js';
import type { FamilyEndpoints, LocalService, NodeLocalState } from '../nodeview/types.js';
import type { OutputFormat } from './program-options.js';
import { yaml } from '../util/lazy-yaml.js';

/** Renders a node-local state for people (`summary`) or tools (`json`, `yaml`). */
export function formatState(state: NodeLocalState, format: OutputFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(state, null, 2) + '\n';
    case 'yaml':
      return yaml().stringify(state);
    case 'summary':
      return formatSummary(state);
  }
}

function formatSummary(state: NodeLocalState): string {
  const n = state.node;
  const lines = [
    `node ${n.name}${n.zone ? ` (zone ${n.zone})` : ''}: ${state.services.length} services` +
      (n.addresses.length ? `, addresses ${n.addresses.join(' ')}` : '') +
      (n.eligible ? '' : ', NOT ELIGIBLE (being deleted)'),
  ];
  for (const svc of state.services) lines.push(...formatService(svc));
  return lines.join('\n') + '\n';
}

function formatService(svc: LocalService): string[] {
  const flags = [
    svc.type,
    svc.sessionAffinity.type === 'ClientIP' ? `affinity ClientIP ${svc.sessionAffinity.timeoutSeconds}s` : '',
    svc.internalPolicyLocal ? 'ITP=Local' : '',
    svc.externalPolicyLocal ? `ETP=Local hc=${svc.healthCheckNodePort} localReady=${svc.localReadyEndpoints}` : '',
  ].filter(Boolean);
  const out = [`  ${svc.key} [${flags.join(', ')}]`];
  for (const [family, addrs] of Object.entries(svc.families)) {
    const extra = [
      addrs.externalIPs.length ? `external ${addrs.externalIPs.join(' ')}` : '',
      addrs.loadBalancerIPs.length ? `lb ${addrs.loadBalancerIPs.join(' ')}` : '',
      addrs.loadBalancerSourceRanges.length ? `from ${addrs.loadBalancerSourceRanges.join(' ')}` : '',
    ].filter(Boolean);
    out.push(`    ${family} ${addrs.clusterIP}${extra.length ? ' ' + extra.join(', ') : ''}`);
  }
  for (const port of svc.ports) {
    const np = port.nodePort ? ` nodePort ${port.nodePort}` : '';
    for (const [family, eps] of Object.entries(port.endpoints) as [string, FamilyEndpoints][]) {
      out.push(
        `    ${port.name || '(unnamed)'} ${port.port}/${port.protocol}${np} ${family}: ${describeEndpoints(svc, eps)}`,
      );
    }
  }
  return out;
}

function describeEndpoints(svc: LocalService, eps: FamilyEndpoints): string {
  if (!eps.hasAnyEndpoints) return 'no endpoints (REJECT)';
  const list = (l: FamilyEndpoints['cluster']) =>
    l.length
      ? l
          .map((e) => `${endpointString(e.ip, e.port)}${e.isLocal ? '*' : ''}${e.ready ? '' : ' (terminating)'}`)
          .join(' ')
      : 'none (DROP)';
  const parts = [`internal ${list(eps.internal)}`];
  if (svc.externallyAccessible && eps.external !== eps.internal) parts.push(`external ${list(eps.external)}`);
  return parts.join('; ');
}
