export {
  ConntrackTool,
  type ConntrackCleaner,
  type ConntrackCleanupRequest,
  type ConntrackToolOptions,
} from './cleaner.js';
export { createConntrackMetrics, type ConntrackObserver } from './metrics.js';
export { parseFlow, type Flow } from './entries.js';
