import { describe, expect, it } from 'vitest';
import { HcnError, HResult } from '../errors.js';
import { loadBalancerJson, SCHEMA_V2, type HostComputeLoadBalancer } from '../schema.js';
import { FakeHns } from './fake-hns.js';

function setup() {
  const hns = new FakeHns();
  const net = hns.addNetwork({ name: 'cbr0', type: 'L2Bridge' });
  const ep4 = hns.addLocalEndpoint(net, '198.18.1.10');
  const ep6 = hns.addLocalEndpoint(net, '2001:db8:1::10');
  return { hns, net, ep4, ep6 };
}

const lb = (ep: string, over: Partial<HostComputeLoadBalancer> = {}): HostComputeLoadBalancer => ({
  HostComputeEndpoints: [ep],
  FrontendVIPs: ['198.19.0.10'],
  PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
  SchemaVersion: SCHEMA_V2,
  ...over,
});

async function refusal(hns: FakeHns, doc: HostComputeLoadBalancer | string): Promise<number> {
  const settings = typeof doc === 'string' ? doc : loadBalancerJson(doc);
  const e = await hns.createLoadBalancer(settings).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(HcnError);
  expect((e as HcnError).errorRecord).toContain('"Success":false');
  return (e as HcnError).hresult;
}

describe('fake HNS load balancer rules', () => {
  it('fake HNS accepts a valid load balancer and assigns an ID', async () => {
    const { hns, ep4 } = setup();
    const created = await hns.createLoadBalancer(loadBalancerJson(lb(ep4)));
    expect(created.ID).toMatch(/^B{8}-/);
    expect(hns.loadBalancers()).toHaveLength(1);
  });

  const cases: {
    name: string;
    doc: (ep4: string, ep6: string) => HostComputeLoadBalancer | string;
    hresult: number;
  }[] = [
    { name: 'invalid JSON', doc: () => '{"PortMappings":', hresult: HResult.HCN_E_INVALID_JSON },
    {
      name: 'no schema version',
      doc: (e) => ({ ...lb(e), SchemaVersion: { Major: 1, Minor: 0 } }),
      hresult: HResult.HCN_E_INVALID_JSON,
    },
    {
      name: 'unknown endpoint ID',
      doc: () => lb('E0000000-0000-4000-8000-000000000999'),
      hresult: HResult.HCN_E_ENDPOINT_NOT_FOUND,
    },
    {
      name: 'no endpoints',
      doc: (e) => ({ ...lb(e), HostComputeEndpoints: [] }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'internal port zero',
      doc: (e) => lb(e, { PortMappings: [{ Protocol: 6, ExternalPort: 80 }] }),
      hresult: HResult.HCN_E_INVALID_INTERNAL_PORT,
    },
    {
      name: 'two port mappings',
      doc: (e) =>
        lb(e, {
          PortMappings: [
            { Protocol: 6, InternalPort: 1, ExternalPort: 1 },
            { Protocol: 6, InternalPort: 2, ExternalPort: 2 },
          ],
        }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'unknown protocol',
      doc: (e) => lb(e, { PortMappings: [{ Protocol: 1, InternalPort: 8080, ExternalPort: 80 }] }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'ILB with VipExternalIP',
      doc: (e) => lb(e, { PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80, Flags: 1 | 16 }] }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'unknown port mapping flag bits',
      doc: (e) => lb(e, { PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80, Flags: 32 }] }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'unknown distribution type',
      doc: (e) => lb(e, { PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80, DistributionType: 3 }] }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'LocalRoutedVIP with a VIP',
      doc: (e) => lb(e, { PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80, Flags: 2 }] }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    { name: 'unknown flag bits', doc: (e) => lb(e, { Flags: 4 }), hresult: HResult.HCN_E_INVALID_POLICY },
    {
      name: 'IPv6 VIP without the IPv6 flag',
      doc: (_e, e6) => lb(e6, { FrontendVIPs: ['2001:db8:ff::10'] }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'IPv4 endpoint in an IPv6 load balancer',
      doc: (e) => lb(e, { FrontendVIPs: ['2001:db8:ff::10'], Flags: 2 }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'unparsable VIP',
      doc: (e) => lb(e, { FrontendVIPs: ['198.19.0.300'] }),
      hresult: HResult.HCN_E_INVALID_IP,
    },
    {
      name: 'source VIP of the other family',
      doc: (e) => lb(e, { SourceVIP: '2001:db8::1' }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
    {
      name: 'ID set by the caller',
      doc: (e) => lb(e, { ID: 'B0000000-0000-4000-8000-000000000001' }),
      hresult: HResult.HCN_E_INVALID_POLICY,
    },
  ];
  for (const c of cases) {
    it(`fake HNS refuses: ${c.name}`, async () => {
      const { hns, ep4, ep6 } = setup();
      expect(await refusal(hns, c.doc(ep4, ep6))).toBe(c.hresult);
      expect(hns.loadBalancers()).toHaveLength(0);
      expect(hns.calls).toHaveLength(0);
    });
  }

  it('fake HNS refuses a second load balancer on the same VIP, protocol and port', async () => {
    const { hns, ep4 } = setup();
    await hns.createLoadBalancer(loadBalancerJson(lb(ep4)));
    expect(await refusal(hns, lb(ep4, { PortMappings: [{ Protocol: 6, InternalPort: 9090, ExternalPort: 80 }] }))).toBe(
      HResult.HCN_E_PORT_ALREADY_EXISTS,
    );
    // Another protocol or port on the same VIP is a different frontend.
    await hns.createLoadBalancer(
      loadBalancerJson(lb(ep4, { PortMappings: [{ Protocol: 17, InternalPort: 8080, ExternalPort: 80 }] })),
    );
    await hns.createLoadBalancer(
      loadBalancerJson(lb(ep4, { PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 81 }] })),
    );
    expect(hns.loadBalancers()).toHaveLength(3);
  });

  it('fake HNS refuses two NodePort load balancers on one node port of one family', async () => {
    const { hns, ep4, ep6 } = setup();
    const nodePort = (ep: string, flags: number) =>
      lb(ep, {
        FrontendVIPs: [],
        Flags: flags,
        PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 30080, Flags: 2 | 16 }],
      });
    await hns.createLoadBalancer(loadBalancerJson(nodePort(ep4, 0)));
    await hns.createLoadBalancer(loadBalancerJson(nodePort(ep6, 2)));
    expect(await refusal(hns, nodePort(ep4, 0))).toBe(HResult.HCN_E_PORT_ALREADY_EXISTS);
  });

  it('fake HNS will not delete an endpoint a load balancer uses, nor what it does not have', async () => {
    const { hns, ep4 } = setup();
    const created = await hns.createLoadBalancer(loadBalancerJson(lb(ep4)));
    await expect(hns.deleteEndpoint(ep4)).rejects.toMatchObject({ hresult: HResult.HCN_E_ENTITY_HAS_REFERENCES });
    await hns.deleteLoadBalancer(created.ID!);
    await hns.deleteEndpoint(ep4);
    await expect(hns.deleteEndpoint(ep4)).rejects.toMatchObject({ hresult: HResult.HCN_E_ENDPOINT_NOT_FOUND });
    await expect(hns.deleteLoadBalancer(created.ID!)).rejects.toMatchObject({ hresult: HResult.ERROR_NOT_FOUND });
  });

  it('fake HNS endpoint rules: network, IP, MAC, policies, one endpoint per IP', async () => {
    const { hns, net } = setup();
    const ok = {
      IpConfigurations: [{ IpAddress: '198.18.2.10' }],
      MacAddress: '02-11-c6-12-02-0a',
      Flags: 1,
      SchemaVersion: SCHEMA_V2,
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '198.18.255.2' } }],
    };
    await expect(hns.createEndpoint('AAAAAAAA-0000-4000-8000-0000000000ff', JSON.stringify(ok))).rejects.toMatchObject({
      hresult: HResult.HCN_E_NETWORK_NOT_FOUND,
    });
    await expect(hns.createEndpoint(net, JSON.stringify({ ...ok, MacAddress: 'zz' }))).rejects.toMatchObject({
      hresult: HResult.HCN_E_INVALID_ENDPOINT,
    });
    await expect(hns.createEndpoint(net, JSON.stringify({ ...ok, IpConfigurations: [] }))).rejects.toMatchObject({
      hresult: HResult.HCN_E_INVALID_ENDPOINT,
    });
    await expect(hns.createEndpoint(net, JSON.stringify({ ...ok, Policies: [{ Type: 'ACL' }] }))).rejects.toMatchObject(
      { hresult: HResult.HCN_E_INVALID_POLICY },
    );
    const created = await hns.createEndpoint(net, JSON.stringify(ok));
    expect(created.HostComputeNetwork).toBe(net);
    await expect(hns.createEndpoint(net, JSON.stringify(ok))).rejects.toMatchObject({
      hresult: HResult.HCN_E_INVALID_IP,
    });
    expect(await hns.listEndpoints(net)).toHaveLength(3);
  });

  it('fake HNS injects a failure on the chosen call', async () => {
    const { hns, ep4 } = setup();
    hns.failNext('createLoadBalancer', HResult.HCN_E_INVALID_POLICY, 1);
    await hns.createLoadBalancer(loadBalancerJson(lb(ep4)));
    await expect(hns.createLoadBalancer(loadBalancerJson(lb(ep4, { FrontendVIPs: ['198.19.0.11'] })))).rejects.toThrow(
      /HcnCreateLoadBalancer failed: 0x803B000D \(HCN_E_INVALID_POLICY\)/,
    );
  });
});
