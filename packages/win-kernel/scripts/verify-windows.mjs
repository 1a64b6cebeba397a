#!/usr/bin/env node
// Runs kpng's HNS verification cases on a Windows node, against the real computenetwork.dll, and
// reports every place where HNS disagrees with the fake HNS the unit tests use. Run it from the
// package folder after `npm install` and `npm run build`, in an elevated shell (or a HostProcess
// container) on a node whose HNS network you name:
//
//   node scripts/verify-windows.mjs --network-name cbr0 [--endpoint-id GUID] [--vips 203.0.113.200,203.0.113.201]
//                                   [--port 64990] [--remote-ip 203.0.113.202] [--provider-address NODE_IP] [--json]
//
// What it touches: it creates load balancers on the given VIPs (TEST-NET-3 by default) and port,
// and one remote endpoint, and deletes each again before moving on (also on failure). It never
// deletes anything it did not create. Exit code: 0 when HNS agrees with the fake on every case.
import { parseArgs } from 'node:util';
import { NativeHns } from '../dist/hcn/native/native-hns.js';
import { formatHResult, EndpointFlags, SCHEMA_V2, endpointJson } from '../dist/hcn/index.js';
import { runVerification, agrees } from '../dist/verify/run.js';
import { conjureMac } from '../dist/render/network.js';

const { values } = parseArgs({
  options: {
    'network-name': { type: 'string', default: process.env.KUBE_NETWORK },
    'endpoint-id': { type: 'string' },
    vips: { type: 'string', default: '203.0.113.200,203.0.113.201' },
    port: { type: 'string', default: '64990' },
    'remote-ip': { type: 'string', default: '203.0.113.202' },
    'provider-address': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

if (process.platform !== 'win32') {
  console.error(
    'verify-windows: this runs on a Windows node (it calls computenetwork.dll); the unit tests cover everything else',
  );
  process.exit(2);
}
const networkName = values['network-name'];
if (!networkName) {
  console.error('verify-windows: --network-name (or $KUBE_NETWORK) is required');
  process.exit(2);
}

const hns = NativeHns.open();
const network = await hns.getNetworkByName(networkName);
if (network === undefined) {
  console.error(`verify-windows: no HNS network named ${JSON.stringify(networkName)}`);
  process.exit(2);
}
const endpoints = await hns.listEndpoints(network.ID);
const local =
  values['endpoint-id'] ??
  endpoints.find(
    (e) =>
      ((e.Flags ?? 0) & EndpointFlags.RemoteEndpoint) === 0 &&
      e.IpConfigurations?.some((c) => !c.IpAddress.includes(':')),
  )?.ID;
if (local === undefined) {
  console.error(
    `verify-windows: network ${networkName} has no local IPv4 endpoint; start a pod on this node or pass --endpoint-id`,
  );
  process.exit(2);
}
const vips = values.vips.split(',').map((s) => s.trim());
const ctx = { endpointId: local, vips: [vips[0], vips[1] ?? vips[0]], port: Number(values.port) };
const results = await runVerification(hns, ctx);

// Endpoint lifecycle: a remote endpoint as the backend creates it, listed, then deleted.
const remoteIp = values['remote-ip'];
const overlay = (network.Type ?? '').toLowerCase() === 'overlay';
const pa = values['provider-address'];
const settings = endpointJson({
  HostComputeNetwork: network.ID,
  ...(overlay && pa ? { Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: pa } }] } : {}),
  IpConfigurations: [{ IpAddress: remoteIp }],
  MacAddress: conjureMac('02-11', remoteIp),
  Flags: EndpointFlags.RemoteEndpoint,
  SchemaVersion: SCHEMA_V2,
});
let endpointResult;
try {
  const ep = await hns.createEndpoint(network.ID, settings);
  try {
    const listed = (await hns.listEndpoints(network.ID)).find((e) => e.ID?.toUpperCase() === ep.ID?.toUpperCase());
    endpointResult =
      listed && ((listed.Flags ?? 0) & 1) === 1 ? 'ok' : `created but listed as ${JSON.stringify(listed)}`;
  } finally {
    await hns.deleteEndpoint(ep.ID);
  }
  const gone = !(await hns.listEndpoints(network.ID)).some((e) => e.ID?.toUpperCase() === ep.ID?.toUpperCase());
  if (!gone) endpointResult = 'deleted but still listed';
} catch (e) {
  endpointResult = `failed: ${e.message}`;
}

const failures = results.filter((r) => !agrees(r)).length + (endpointResult === 'ok' ? 0 : 1);
if (values.json) {
  console.log(
    JSON.stringify(
      { network: { name: network.Name, type: network.Type }, results, remoteEndpoint: endpointResult, failures },
      null,
      2,
    ),
  );
} else {
  console.log(`HNS network ${network.Name} (${network.Type}), endpoint ${local}`);
  for (const r of results) {
    const got = r.actual === 0 ? 'accepted' : r.actual === -1 ? 'error' : formatHResult(r.actual);
    const want = r.expected === 0 ? 'accepted' : formatHResult(r.expected);
    console.log(
      `${agrees(r) ? 'ok  ' : 'DIFF'} [${r.basis}] ${r.name}: fake ${want}, HNS ${got}${r.roundTrip ? `; ${r.roundTrip}` : ''}`,
    );
  }
  console.log(`${endpointResult === 'ok' ? 'ok  ' : 'DIFF'} remote endpoint create/list/delete: ${endpointResult}`);
  console.log(
    failures === 0
      ? 'HNS agrees with the fake on every case'
      : `${failures} disagreement(s): report them with this output`,
  );
}
hns.close();
process.exit(failures === 0 ? 0 : 1);
