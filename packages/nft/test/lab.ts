// The kernel lab (tools/lab), by path until @kpng/lab's index re-exports ./netns.
export {
  createNamespace,
  kernelE2e,
  Lab,
  sweepLeftovers,
  type LabPod,
  type NetworkNamespace,
  type ProbeResult,
} from '@kpng/lab';
