/**
 * The shape of a v1alpha1 KubeProxyConfiguration as data: one entry per JSON field with the Go
 * type behind it. The strict decoder walks it; anything not listed is an unknown field.
 */
export type FieldType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'uint32'
  | 'float32'
  | 'duration'
  | 'stringList'
  | 'boolMap'
  /** Passed through as it is (logging's per-format options). */
  | 'opaque'
  /** Gone from kube-proxy; accepted with a warning so old files still load. */
  | 'removed'
  | ObjectType
  | ListType;

export interface ObjectType {
  readonly object: Readonly<Record<string, FieldType>>;
}

export interface ListType {
  readonly listOf: FieldType;
}

export const CONFIGURATION_SCHEMA: ObjectType = {
  object: {
    apiVersion: 'string',
    kind: 'string',
    featureGates: 'boolMap',
    clientConnection: {
      object: {
        kubeconfig: 'string',
        acceptContentTypes: 'string',
        contentType: 'string',
        qps: 'float32',
        burst: 'int32',
      },
    },
    logging: {
      object: {
        format: 'string',
        flushFrequency: 'duration',
        verbosity: 'uint32',
        vmodule: { listOf: { object: { filePattern: 'string', verbosity: 'uint32' } } },
        options: 'opaque',
      },
    },
    hostnameOverride: 'string',
    bindAddress: 'string',
    healthzBindAddress: 'string',
    metricsBindAddress: 'string',
    bindAddressHardFail: 'bool',
    enableProfiling: 'bool',
    showHiddenMetricsForVersion: 'string',
    serviceProxyName: 'string',
    mode: 'string',
    iptables: {
      object: {
        masqueradeBit: 'int32',
        masqueradeAll: 'bool',
        localhostNodePorts: 'bool',
        syncPeriod: 'duration',
        minSyncPeriod: 'duration',
      },
    },
    ipvs: {
      object: {
        syncPeriod: 'duration',
        minSyncPeriod: 'duration',
        scheduler: 'string',
        excludeCIDRs: 'stringList',
        strictARP: 'bool',
        tcpTimeout: 'duration',
        tcpFinTimeout: 'duration',
        udpTimeout: 'duration',
      },
    },
    nftables: {
      object: {
        masqueradeBit: 'int32',
        masqueradeAll: 'bool',
        syncPeriod: 'duration',
        minSyncPeriod: 'duration',
        tableName: 'string',
      },
    },
    winkernel: {
      object: {
        networkName: 'string',
        sourceVip: 'string',
        enableDSR: 'bool',
        rootHnsEndpointName: 'string',
        forwardHealthCheckVip: 'bool',
      },
    },
    detectLocalMode: 'string',
    detectLocal: { object: { bridgeInterface: 'string', interfaceNamePrefix: 'string' } },
    clusterCIDR: 'string',
    nodePortAddresses: 'stringList',
    oomScoreAdj: 'int32',
    conntrack: {
      object: {
        maxPerCore: 'int32',
        min: 'int32',
        tcpEstablishedTimeout: 'duration',
        tcpCloseWaitTimeout: 'duration',
        tcpBeLiberal: 'bool',
        udpTimeout: 'duration',
        udpStreamTimeout: 'duration',
      },
    },
    configSyncPeriod: 'duration',
    portRange: 'string',
    windowsRunAsService: 'bool',
    // kpng's extension: NetworkPolicy enforcement beside the mode's backend (`--with-netpol`).
    enforceNetworkPolicy: 'bool',
    // Removed from kube-proxy with the userspace proxy and resource containers.
    udpIdleTimeout: 'removed',
    resourceContainer: 'removed',
  },
};

/** Go's type names, for decoding errors that read like encoding/json's. */
export const GO_TYPE: Readonly<Record<string, string>> = {
  string: 'string',
  bool: 'bool',
  int32: 'int32',
  uint32: 'uint32',
  float32: 'float32',
  duration: 'v1.Duration',
  stringList: '[]string',
  boolMap: 'map[string]bool',
};
