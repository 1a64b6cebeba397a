/**
 * `Hns` over computenetwork.dll, call for call what hcsshim's `hcn` package does: enumerate IDs,
 * open each object, query its properties, close it; create with a nil GUID (HNS assigns the ID)
 * and read the created object back. Every string HNS returns (results and error records) is read
 * and released with CoTaskMemFree, failed calls included; every handle is closed, also on error.
 */
import { HcnError, failed } from '../errors.js';
import { guidToBytes, NIL_GUID } from '../guid.js';
import type { Hns } from '../hns.js';
import {
  queryJson,
  type HostComputeEndpoint,
  type HostComputeLoadBalancer,
  type HostComputeNetwork,
} from '../schema.js';
import {
  loadHcnFunctions,
  WINDOWS_LIBRARIES,
  type HcnFunctions,
  type HcnLibraryPaths,
  type Out,
  type Pointer,
} from './bindings.js';

type Kind = 'Network' | 'Endpoint' | 'LoadBalancer';

export class NativeHns implements Hns {
  readonly #fn: HcnFunctions;

  constructor(functions: HcnFunctions) {
    this.#fn = functions;
  }

  /** Loads computenetwork.dll (or, in tests, a library with the same exports). */
  static open(paths: HcnLibraryPaths = WINDOWS_LIBRARIES): NativeHns {
    return new NativeHns(loadHcnFunctions(paths));
  }

  async getNetworkByName(name: string): Promise<HostComputeNetwork | undefined> {
    const networks = await this.#list<HostComputeNetwork>('Network', queryJson({ Name: name }));
    return networks[0];
  }

  listEndpoints(networkId: string): Promise<HostComputeEndpoint[]> {
    return this.#list<HostComputeEndpoint>('Endpoint', queryJson({ HostComputeNetwork: networkId }));
  }

  async createEndpoint(networkId: string, settings: string): Promise<HostComputeEndpoint> {
    const network = await this.#open('Network', networkId);
    try {
      const handle: Out = [null];
      const errorRecord: Out = [null];
      const hr = await this.#fn.HcnCreateEndpoint(network, guidToBytes(NIL_GUID), settings, handle, errorRecord);
      this.#check('HcnCreateEndpoint', hr, errorRecord);
      try {
        return JSON.parse(await this.#query('Endpoint', handle[0], queryJson())) as HostComputeEndpoint;
      } finally {
        await this.#close('Endpoint', handle[0]);
      }
    } finally {
      await this.#close('Network', network);
    }
  }

  async deleteEndpoint(id: string): Promise<void> {
    const errorRecord: Out = [null];
    this.#check('HcnDeleteEndpoint', await this.#fn.HcnDeleteEndpoint(guidToBytes(id), errorRecord), errorRecord);
  }

  listLoadBalancers(): Promise<HostComputeLoadBalancer[]> {
    return this.#list<HostComputeLoadBalancer>('LoadBalancer', queryJson());
  }

  async createLoadBalancer(settings: string): Promise<HostComputeLoadBalancer> {
    const handle: Out = [null];
    const errorRecord: Out = [null];
    const hr = await this.#fn.HcnCreateLoadBalancer(guidToBytes(NIL_GUID), settings, handle, errorRecord);
    this.#check('HcnCreateLoadBalancer', hr, errorRecord);
    try {
      return JSON.parse(await this.#query('LoadBalancer', handle[0], queryJson())) as HostComputeLoadBalancer;
    } finally {
      await this.#close('LoadBalancer', handle[0]);
    }
  }

  async deleteLoadBalancer(id: string): Promise<void> {
    const errorRecord: Out = [null];
    this.#check(
      'HcnDeleteLoadBalancer',
      await this.#fn.HcnDeleteLoadBalancer(guidToBytes(id), errorRecord),
      errorRecord,
    );
  }

  close(): void {
    this.#fn.unload();
  }

  async #list<T>(kind: Kind, query: string): Promise<T[]> {
    const ids: Out = [null];
    const errorRecord: Out = [null];
    const name =
      kind === 'Network'
        ? 'HcnEnumerateNetworks'
        : kind === 'Endpoint'
          ? 'HcnEnumerateEndpoints'
          : 'HcnEnumerateLoadBalancers';
    const hr = await this.#fn[name](query, ids, errorRecord);
    this.#check(name, hr, errorRecord);
    const list = this.#take(ids[0]);
    const guids = list === '' ? [] : ((JSON.parse(list) as string[] | null) ?? []);
    const out: T[] = [];
    for (const id of guids) {
      const handle = await this.#open(kind, id);
      try {
        out.push(JSON.parse(await this.#query(kind, handle, query)) as T);
      } finally {
        await this.#close(kind, handle);
      }
    }
    return out;
  }

  async #open(kind: Kind, id: string): Promise<Pointer> {
    const handle: Out = [null];
    const errorRecord: Out = [null];
    const name = `HcnOpen${kind}` as const;
    this.#check(name, await this.#fn[name](guidToBytes(id), handle, errorRecord), errorRecord);
    return handle[0];
  }

  async #query(kind: Kind, handle: Pointer, query: string): Promise<string> {
    const properties: Out = [null];
    const errorRecord: Out = [null];
    const name = `HcnQuery${kind}Properties` as const;
    const hr = await this.#fn[name](handle, query, properties, errorRecord);
    const text = this.#take(properties[0]);
    this.#check(name, hr, errorRecord);
    return text;
  }

  async #close(kind: Kind, handle: Pointer): Promise<void> {
    if (handle === null) return;
    const name = `HcnClose${kind}` as const;
    const hr = await this.#fn[name](handle);
    if (failed(hr)) throw new HcnError(name, hr);
  }

  /** Reads and frees a string HNS allocated. */
  #take(p: Pointer): string {
    if (p === null) return '';
    try {
      return this.#fn.readString(p);
    } finally {
      this.#fn.CoTaskMemFree(p);
    }
  }

  /** hcsshim's checkForErrors: a failed HRESULT, or any error record, is an error. The record is freed either way. */
  #check(operation: string, hr: number, errorRecord: Out): void {
    const record = this.#take(errorRecord[0]);
    if (failed(hr) || record !== '') throw new HcnError(operation, hr, record);
  }
}
