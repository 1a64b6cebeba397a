/** The `file` source: Services, EndpointSlices and Nodes from manifests on disk. */
export { FileSource, type FileSourceOptions } from './file-source.js';
export { parseManifest, type ManifestObject, type ParsedManifest } from './parse-manifest.js';
