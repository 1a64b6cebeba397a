/**
 * The client-node classes the kube source uses, each from its own module in client-node's `dist`
 * rather than from the package root, which loads the whole generated API (`client-node.ts` says
 * why, and which two imports of these modules it redirects). Import this module only after
 * `slimClientNode()` (the kube source loads it with `import()` when it starts).
 */
/* eslint-disable no-restricted-imports -- client-node has no `exports` map: these paths are its modules, not a build of ours */
export { KubeConfig } from '@kubernetes/client-node/dist/config.js';
/* eslint-enable no-restricted-imports */
