export {
  cleanStaleFlows,
  ConntrackTool,
  type ConntrackCleaner,
  type ConntrackCleanupRequest,
  type ConntrackToolOptions,
  type StaleFlowCleanup,
} from './cleaner.js';
export { createConntrackMetrics, type ConntrackObserver } from './metrics.js';
export { parseFlow, type Flow } from './entries.js';
