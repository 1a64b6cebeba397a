/**
 * computenetwork.dll (and ole32's CoTaskMemFree) declared through koffi, with HCN's C signatures:
 * GUIDs by pointer to their 16 bytes, settings and queries as NUL-terminated UTF-16, handles and
 * HNS-allocated strings as raw pointers. Calls run on koffi's worker threads (`.async`), so a slow
 * HNS never blocks the event loop. On Linux, tests load a stub library with the same exports.
 */
import koffi, { type LibraryHandle } from 'koffi';

export interface HcnLibraryPaths {
  readonly computeNetwork: string;
  /** Where CoTaskMemFree lives. */
  readonly ole32: string;
}

export const WINDOWS_LIBRARIES: HcnLibraryPaths = { computeNetwork: 'computenetwork.dll', ole32: 'ole32.dll' };

/** A pointer as koffi 3 gives it (null for NULL). */
export type Pointer = bigint | null;
/** An out-parameter: koffi writes the callee's value into slot 0. */
export type Out = [Pointer];

type Call<A extends unknown[]> = (...args: A) => Promise<number>;

export interface HcnFunctions {
  HcnEnumerateNetworks: Call<[query: string, networks: Out, errorRecord: Out]>;
  HcnOpenNetwork: Call<[id: Buffer, network: Out, errorRecord: Out]>;
  HcnQueryNetworkProperties: Call<[network: Pointer, query: string, properties: Out, errorRecord: Out]>;
  HcnCloseNetwork: Call<[network: Pointer]>;
  HcnEnumerateEndpoints: Call<[query: string, endpoints: Out, errorRecord: Out]>;
  HcnCreateEndpoint: Call<[network: Pointer, id: Buffer, settings: string, endpoint: Out, errorRecord: Out]>;
  HcnOpenEndpoint: Call<[id: Buffer, endpoint: Out, errorRecord: Out]>;
  HcnQueryEndpointProperties: Call<[endpoint: Pointer, query: string, properties: Out, errorRecord: Out]>;
  HcnDeleteEndpoint: Call<[id: Buffer, errorRecord: Out]>;
  HcnCloseEndpoint: Call<[endpoint: Pointer]>;
  HcnEnumerateLoadBalancers: Call<[query: string, loadBalancers: Out, errorRecord: Out]>;
  HcnCreateLoadBalancer: Call<[id: Buffer, settings: string, loadBalancer: Out, errorRecord: Out]>;
  HcnOpenLoadBalancer: Call<[id: Buffer, loadBalancer: Out, errorRecord: Out]>;
  HcnQueryLoadBalancerProperties: Call<[loadBalancer: Pointer, query: string, properties: Out, errorRecord: Out]>;
  HcnDeleteLoadBalancer: Call<[id: Buffer, errorRecord: Out]>;
  HcnCloseLoadBalancer: Call<[loadBalancer: Pointer]>;
  /** Frees a string HNS allocated (synchronous: it is cheap and must not be skipped). */
  CoTaskMemFree(p: Pointer): void;
  /** Reads a NUL-terminated UTF-16 string HNS allocated (without freeing it). */
  readString(p: Pointer): string;
  unload(): void;
}

/** HRESULT functions of ComputeNetwork.h, as koffi prototypes (`__stdcall` = WINAPI; ignored off 32-bit x86). */
const PROTOTYPES = {
  HcnEnumerateNetworks:
    'int32_t __stdcall HcnEnumerateNetworks(const char16_t *Query, _Out_ void **Networks, _Out_ void **ErrorRecord)',
  HcnOpenNetwork: 'int32_t __stdcall HcnOpenNetwork(const void *Id, _Out_ void **Network, _Out_ void **ErrorRecord)',
  HcnQueryNetworkProperties:
    'int32_t __stdcall HcnQueryNetworkProperties(void *Network, const char16_t *Query, _Out_ void **Properties, _Out_ void **ErrorRecord)',
  HcnCloseNetwork: 'int32_t __stdcall HcnCloseNetwork(void *Network)',
  HcnEnumerateEndpoints:
    'int32_t __stdcall HcnEnumerateEndpoints(const char16_t *Query, _Out_ void **Endpoints, _Out_ void **ErrorRecord)',
  HcnCreateEndpoint:
    'int32_t __stdcall HcnCreateEndpoint(void *Network, const void *Id, const char16_t *Settings, _Out_ void **Endpoint, _Out_ void **ErrorRecord)',
  HcnOpenEndpoint: 'int32_t __stdcall HcnOpenEndpoint(const void *Id, _Out_ void **Endpoint, _Out_ void **ErrorRecord)',
  HcnQueryEndpointProperties:
    'int32_t __stdcall HcnQueryEndpointProperties(void *Endpoint, const char16_t *Query, _Out_ void **Properties, _Out_ void **ErrorRecord)',
  HcnDeleteEndpoint: 'int32_t __stdcall HcnDeleteEndpoint(const void *Id, _Out_ void **ErrorRecord)',
  HcnCloseEndpoint: 'int32_t __stdcall HcnCloseEndpoint(void *Endpoint)',
  HcnEnumerateLoadBalancers:
    'int32_t __stdcall HcnEnumerateLoadBalancers(const char16_t *Query, _Out_ void **LoadBalancers, _Out_ void **ErrorRecord)',
  HcnCreateLoadBalancer:
    'int32_t __stdcall HcnCreateLoadBalancer(const void *Id, const char16_t *Settings, _Out_ void **LoadBalancer, _Out_ void **ErrorRecord)',
  HcnOpenLoadBalancer:
    'int32_t __stdcall HcnOpenLoadBalancer(const void *Id, _Out_ void **LoadBalancer, _Out_ void **ErrorRecord)',
  HcnQueryLoadBalancerProperties:
    'int32_t __stdcall HcnQueryLoadBalancerProperties(void *LoadBalancer, const char16_t *Query, _Out_ void **Properties, _Out_ void **ErrorRecord)',
  HcnDeleteLoadBalancer: 'int32_t __stdcall HcnDeleteLoadBalancer(const void *Id, _Out_ void **ErrorRecord)',
  HcnCloseLoadBalancer: 'int32_t __stdcall HcnCloseLoadBalancer(void *LoadBalancer)',
} as const;

type KoffiFunction = ReturnType<LibraryHandle['func']>;

function promised(fn: KoffiFunction): (...args: unknown[]) => Promise<number> {
  return (...args) =>
    new Promise((resolve, reject) => {
      fn.async(...args, (err: unknown, hr: number) => (err ? reject(err) : resolve(hr)));
    });
}

function load(path: string): LibraryHandle {
  try {
    return koffi.load(path);
  } catch (e) {
    throw new Error(
      `cannot load ${path} (the Host Compute Network API needs Windows Server 2019 or later): ${(e as Error).message}`,
      { cause: e },
    );
  }
}

function declare(lib: LibraryHandle, path: string, prototype: string): KoffiFunction {
  try {
    return lib.func(prototype);
  } catch (e) {
    throw new Error(`${path} lacks ${prototype}: ${(e as Error).message}`, { cause: e });
  }
}

/** Loads the libraries and declares every function; throws (with the path) when a library or symbol is missing. */
export function loadHcnFunctions(paths: HcnLibraryPaths = WINDOWS_LIBRARIES): HcnFunctions {
  const net = load(paths.computeNetwork);
  const ole = paths.ole32 === paths.computeNetwork ? net : load(paths.ole32);
  const table: Record<string, unknown> = {};
  for (const [name, prototype] of Object.entries(PROTOTYPES))
    table[name] = promised(declare(net, paths.computeNetwork, prototype));
  const free = declare(ole, paths.ole32, 'void __stdcall CoTaskMemFree(void *pv)');
  table['CoTaskMemFree'] = (p: Pointer) => free(p);
  table['readString'] = (p: Pointer) => (p === null ? '' : koffi.decode.string16(p));
  table['unload'] = () => {
    net.unload();
    if (ole !== net) ole.unload();
  };
  return table as unknown as HcnFunctions;
}
