/** Health: the node health server (`/healthz`, `/livez`) and per-Service health-check node ports. */
export { ProxyHealth, type ProxyHealthOptions, type HealthCounters, type HealthReply } from './proxy-health.js';
export { startHealthServer, type HealthServer, type HealthServerOptions } from './health-server.js';
export { ServiceHealthServers, type ServiceHealthServersOptions } from './service-health.js';

export { healthCheckAddressesFor, type HealthCheckAddresses } from './health-check-addresses.js';
