/**
 * @kpng/kube-proxy: kube-proxy's command line and KubeProxyConfiguration (v1alpha1) in front of
 * kpng. Every export is listed by name; this file is the contract.
 */
export { main, type MainIO } from './cli/main.js';
export { parseFlags, ParsedFlags, FlagError } from './flags/parse.js';
export { FLAGS } from './flags/table.js';
export type { FlagSpec } from './flags/spec.js';
export { completeConfiguration, CompleteError, type Completed, type CompleteOptions } from './config/complete.js';
export { decodeConfiguration, ConfigDecodeError, type Decoded } from './config/decode.js';
export { withDefaults } from './config/defaults.js';
export { encodeConfiguration, configurationYaml } from './config/encode.js';
export { validateConfiguration, type ValidationContext } from './config/validate.js';
export { FieldError, aggregate } from './config/field-error.js';
export { parseGoDuration, formatGoDuration } from '@kpng/kit';
export {
  API_VERSION,
  KIND,
  PROXY_MODES,
  LOCAL_MODES,
  type KubeProxyConfiguration,
  type PartialConfiguration,
} from './config/types.js';
export { nftBackendOptions } from './run/nft-options.js';
export { conntrackSysctls, type SysctlSetting } from './run/conntrack.js';
export { AVAILABLE_MODES, DEFAULT_MODE } from './run/modes.js';
