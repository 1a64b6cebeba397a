/** How much one object may hold; see validate.ts. */

/**
 * Counts no legitimate object reaches. An API object is at most 1.5 MiB (etcd's request limit), so
 * it holds at most ~157,000 entries of the shortest list (a 7-character IP, quotes and a comma:
 * 10 bytes); `listEntries` is above that. Where the API server validates a smaller count, the limit
 * is 100 times that count. Above a limit the object is refused whole, as every invalid object
 * is (`reportInvalid`: a warning and `kpng_invalid_objects_total{kind}`; from the API server, with
 * an Event recorder, a Warning Event about the object too).
 */
export const OBJECT_LIMITS = {
  /** Any list of an object: source ranges, external IPs, Service ports, node addresses, labels. */
  listEntries: 200_000,
  /** Endpoints of one EndpointSlice (the API server: 1,000). */
  sliceEndpoints: 100_000,
  /** Ports of one EndpointSlice (the API server: 100). */
  slicePorts: 10_000,
  /** Zone or node hints of one endpoint (the API server: 8). */
  endpointHints: 800,
  /** Free-form strings (`trafficDistribution`, label values). */
  textLength: 1_024,
} as const;
