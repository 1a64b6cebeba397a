/**
 * The FFI layer that runs on Windows, exercised on Linux against a stub computenetwork library:
 * the exact bytes each HCN function receives (UTF-16 settings and queries with their terminator,
 * 16-byte GUIDs, handles), the order of calls, and that every string HNS allocates is freed with
 * CoTaskMemFree and every handle closed, on success and on failure.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  HcnError,
  HResult,
  guidToBytes,
  loadBalancerJson,
  SCHEMA_V2,
  type HostComputeLoadBalancer,
} from '../src/hcn/index.js';
import { NativeHns } from '../src/hcn/native/native-hns.js';
import { HcnStub, handle, OUT, wide } from './stub/stub.js';

let stub: HcnStub;
let hns: NativeHns;
beforeAll(() => {
  stub = HcnStub.build();
  hns = NativeHns.open({ computeNetwork: stub.path, ole32: stub.path });
});
afterAll(() => stub?.dispose());
beforeEach(() => stub.reset());

const NIL = Buffer.alloc(16);
const DEFAULT_QUERY = '{"SchemaVersion":{"Major":2,"Minor":0}}';
const EP_LOCAL = 'E1A2B3C4-0000-4000-8000-000000000001';
const EP_REMOTE = 'E1A2B3C4-0000-4000-8000-000000000002';
const LB_ID = '0B0B0B0B-1111-4222-8333-444455556666';

/** A LoadBalancer IP of a Service with ClientIP affinity and externalTrafficPolicy: Local, on an overlay network. */
const REPRESENTATIVE: HostComputeLoadBalancer = {
  HostComputeEndpoints: [EP_LOCAL, EP_REMOTE],
  SourceVIP: '198.18.1.254',
  FrontendVIPs: ['203.0.113.10'],
  PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 443, DistributionType: 2, Flags: 16 }],
  SchemaVersion: SCHEMA_V2,
  Flags: 1,
};
const SETTINGS = loadBalancerJson(REPRESENTATIVE);

describe('HCN marshalling (stub computenetwork library)', () => {
  it('HcnCreateLoadBalancer gets a nil GUID and the settings as UTF-16; the result is queried, freed and closed', async () => {
    expect(SETTINGS).toBe(
      '{"HostComputeEndpoints":["E1A2B3C4-0000-4000-8000-000000000001","E1A2B3C4-0000-4000-8000-000000000002"],' +
        '"SourceVIP":"198.18.1.254","FrontendVIPs":["203.0.113.10"],' +
        '"PortMappings":[{"Protocol":6,"InternalPort":8080,"ExternalPort":443,"DistributionType":2,"Flags":16}],' +
        '"SchemaVersion":{"Major":2,"Minor":0},"Flags":1}',
    );
    const properties = JSON.stringify({ ...REPRESENTATIVE, ID: LB_ID });
    stub.answer('HcnQueryLoadBalancerProperties', 0, properties);
    const created = await hns.createLoadBalancer(SETTINGS);
    expect(created.ID).toBe(LB_ID);
    expect(stub.calls()).toEqual([
      { name: 'HcnCreateLoadBalancer', args: [NIL, wide(SETTINGS), OUT, OUT] },
      { name: 'HcnQueryLoadBalancerProperties', args: [handle(0x1000), wide(DEFAULT_QUERY), OUT, OUT] },
      { name: 'CoTaskMemFree', args: [wide(properties)] },
      { name: 'HcnCloseLoadBalancer', args: [handle(0x1000)] },
    ]);
    expect(stub.liveStrings()).toBe(0);
    expect(stub.openHandles()).toBe(0);
  });

  it('a failed HcnCreateLoadBalancer surfaces the HRESULT and the error record, and frees the record', async () => {
    const record = '{"Success":false,"Error":"The specified port already exists.","ErrorCode":2151350291}';
    stub.answer('HcnCreateLoadBalancer', HResult.HCN_E_PORT_ALREADY_EXISTS, null, record);
    const e = await hns.createLoadBalancer(SETTINGS).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(HcnError);
    expect(e).toMatchObject({ hresult: 0x803b0013, operation: 'HcnCreateLoadBalancer', errorRecord: record });
    expect((e as Error).message).toBe(
      `HcnCreateLoadBalancer failed: 0x803B0013 (HCN_E_PORT_ALREADY_EXISTS): ${record}`,
    );
    expect(stub.calls().map((c) => c.name)).toEqual(['HcnCreateLoadBalancer', 'CoTaskMemFree']);
    expect(stub.calls()[1]!.args).toEqual([wide(record)]);
    expect(stub.liveStrings()).toBe(0);
  });

  it('an error record with S_OK is still an error (hcsshim checkForErrors)', async () => {
    stub.answer('HcnDeleteLoadBalancer', 0, null, '{"Error":"partial"}');
    await expect(hns.deleteLoadBalancer(LB_ID)).rejects.toMatchObject({
      hresult: 0,
      errorRecord: '{"Error":"partial"}',
    });
    expect(stub.liveStrings()).toBe(0);
  });

  it('HcnDeleteLoadBalancer gets the GUID as its 16-byte struct', async () => {
    await hns.deleteLoadBalancer(LB_ID.toLowerCase());
    const [call] = stub.calls();
    expect(call).toEqual({ name: 'HcnDeleteLoadBalancer', args: [guidToBytes(LB_ID), OUT] });
    expect(call!.args[0]!.toString('hex')).toBe('0b0b0b0b111122428333444455556666');
  });

  it('HcnEnumerateLoadBalancers then open, query, free and close each one', async () => {
    const ids = [LB_ID, 'CAFEF00D-0000-4000-8000-000000000002'];
    stub.answer('HcnEnumerateLoadBalancers', 0, JSON.stringify(ids));
    stub.answer('HcnQueryLoadBalancerProperties', 0, JSON.stringify({ ...REPRESENTATIVE, ID: ids[0] }));
    stub.answer('HcnQueryLoadBalancerProperties', 0, JSON.stringify({ ...REPRESENTATIVE, ID: ids[1] }));
    const lbs = await hns.listLoadBalancers();
    expect(lbs.map((lb) => lb.ID)).toEqual(ids);
    expect(stub.calls().map((c) => c.name)).toEqual([
      'HcnEnumerateLoadBalancers',
      'CoTaskMemFree',
      'HcnOpenLoadBalancer',
      'HcnQueryLoadBalancerProperties',
      'CoTaskMemFree',
      'HcnCloseLoadBalancer',
      'HcnOpenLoadBalancer',
      'HcnQueryLoadBalancerProperties',
      'CoTaskMemFree',
      'HcnCloseLoadBalancer',
    ]);
    const calls = stub.calls();
    expect(calls[0]!.args[0]).toEqual(wide(DEFAULT_QUERY));
    expect(calls[2]!.args[0]).toEqual(guidToBytes(ids[0]!));
    expect(calls[6]!.args[0]).toEqual(guidToBytes(ids[1]!));
    expect(calls[5]!.args[0]).toEqual(handle(0x1000));
    expect(calls[9]!.args[0]).toEqual(handle(0x1001));
    expect(stub.liveStrings()).toBe(0);
    expect(stub.openHandles()).toBe(0);
  });

  it('a failing query still closes the handle and frees both strings', async () => {
    stub.answer('HcnEnumerateLoadBalancers', 0, JSON.stringify([LB_ID]));
    stub.answer('HcnQueryLoadBalancerProperties', HResult.ERROR_NOT_FOUND, '{}', '{"Error":"gone"}');
    await expect(hns.listLoadBalancers()).rejects.toMatchObject({
      hresult: HResult.ERROR_NOT_FOUND,
      operation: 'HcnQueryLoadBalancerProperties',
    });
    expect(
      stub
        .calls()
        .map((c) => c.name)
        .slice(-4),
    ).toEqual(['HcnQueryLoadBalancerProperties', 'CoTaskMemFree', 'CoTaskMemFree', 'HcnCloseLoadBalancer']);
    expect(stub.liveStrings()).toBe(0);
    expect(stub.openHandles()).toBe(0);
  });

  it('network lookup by name: the filter is a JSON string inside the query, non-ASCII names survive UTF-16', async () => {
    const name = 'réseau-€-𝄞';
    const networkId = 'AAAAAAAA-0000-4000-8000-000000000001';
    stub.answer('HcnEnumerateNetworks', 0, JSON.stringify([networkId]));
    stub.answer('HcnQueryNetworkProperties', 0, JSON.stringify({ ID: networkId, Name: name, Type: 'Overlay' }));
    const network = await hns.getNetworkByName(name);
    expect(network).toEqual({ ID: networkId, Name: name, Type: 'Overlay' });
    const query = `{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"${name}\\"}"}`;
    const calls = stub.calls();
    expect(calls[0]).toEqual({ name: 'HcnEnumerateNetworks', args: [wide(query), OUT, OUT] });
    expect(calls[0]!.args[0]!.includes(Buffer.from('34d81edd', 'hex'))).toBe(true); // U+1D11E as a UTF-16 surrogate pair
    expect(calls[0]!.args[0]!.subarray(-2).toString('hex')).toBe('0000');
    expect(calls[3]).toEqual({ name: 'HcnQueryNetworkProperties', args: [handle(0x1000), wide(query), OUT, OUT] });
    expect(stub.liveStrings()).toBe(0);
    expect(stub.openHandles()).toBe(0);
  });

  it('no network of that name: an empty list, nothing opened', async () => {
    stub.answer('HcnEnumerateNetworks', 0, '[]');
    expect(await hns.getNetworkByName('missing')).toBeUndefined();
    expect(stub.calls().map((c) => c.name)).toEqual(['HcnEnumerateNetworks', 'CoTaskMemFree']);
  });

  it('HcnCreateEndpoint runs on an opened network handle, with a nil GUID and the settings; both handles are closed', async () => {
    const networkId = 'AAAAAAAA-0000-4000-8000-000000000001';
    const settings =
      '{"HostComputeNetwork":"AAAAAAAA-0000-4000-8000-000000000001","Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"198.18.255.2"}}],"IpConfigurations":[{"IpAddress":"198.18.2.10"}],"MacAddress":"02-11-c6-12-02-0a","Flags":1,"SchemaVersion":{"Major":2,"Minor":0}}';
    stub.answer('HcnQueryEndpointProperties', 0, JSON.stringify({ ID: EP_REMOTE, ...JSON.parse(settings) }));
    const ep = await hns.createEndpoint(networkId, settings);
    expect(ep.ID).toBe(EP_REMOTE);
    expect(stub.calls()).toEqual([
      { name: 'HcnOpenNetwork', args: [guidToBytes(networkId), OUT, OUT] },
      { name: 'HcnCreateEndpoint', args: [handle(0x1000), NIL, wide(settings), OUT, OUT] },
      { name: 'HcnQueryEndpointProperties', args: [handle(0x1001), wide(DEFAULT_QUERY), OUT, OUT] },
      { name: 'CoTaskMemFree', args: [wide(JSON.stringify({ ID: EP_REMOTE, ...JSON.parse(settings) }))] },
      { name: 'HcnCloseEndpoint', args: [handle(0x1001)] },
      { name: 'HcnCloseNetwork', args: [handle(0x1000)] },
    ]);
    expect(stub.openHandles()).toBe(0);
  });

  it('a refused HcnCreateEndpoint still closes the network handle', async () => {
    stub.answer('HcnCreateEndpoint', HResult.HCN_E_INVALID_IP, null, '{"Error":"bad ip"}');
    await expect(hns.createEndpoint('AAAAAAAA-0000-4000-8000-000000000001', '{}')).rejects.toMatchObject({
      hresult: HResult.HCN_E_INVALID_IP,
    });
    expect(stub.calls().map((c) => c.name)).toEqual([
      'HcnOpenNetwork',
      'HcnCreateEndpoint',
      'CoTaskMemFree',
      'HcnCloseNetwork',
    ]);
    expect(stub.openHandles()).toBe(0);
    expect(stub.liveStrings()).toBe(0);
  });

  it('endpoints of a network: filtered by HostComputeNetwork; HcnDeleteEndpoint gets the GUID bytes', async () => {
    const networkId = 'AAAAAAAA-0000-4000-8000-000000000001';
    stub.answer('HcnEnumerateEndpoints', 0, JSON.stringify([EP_LOCAL]));
    stub.answer(
      'HcnQueryEndpointProperties',
      0,
      JSON.stringify({ ID: EP_LOCAL, IpConfigurations: [{ IpAddress: '198.18.1.10' }] }),
    );
    expect(await hns.listEndpoints(networkId)).toEqual([
      { ID: EP_LOCAL, IpConfigurations: [{ IpAddress: '198.18.1.10' }] },
    ]);
    expect(stub.calls()[0]!.args[0]).toEqual(
      wide(`{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"HostComputeNetwork\\":\\"${networkId}\\"}"}`),
    );
    stub.reset();
    await hns.deleteEndpoint(EP_REMOTE);
    expect(stub.calls()).toEqual([{ name: 'HcnDeleteEndpoint', args: [guidToBytes(EP_REMOTE), OUT] }]);
  });

  it('a missing library or symbol is a clear error naming it', () => {
    expect(() => NativeHns.open({ computeNetwork: '/nonexistent/computenetwork.dll', ole32: stub.path })).toThrow(
      /cannot load \/nonexistent\/computenetwork\.dll/,
    );
    expect(() => NativeHns.open({ computeNetwork: stub.path, ole32: '/usr/lib/x86_64-linux-gnu/libc.so.6' })).toThrow(
      /lacks void __stdcall CoTaskMemFree/,
    );
  });
});
