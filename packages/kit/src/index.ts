// @kpng/kit: the small dependency-free pieces every kpng package shares, each written once.
export { TurnBudget } from './turn-budget.js';
export { inNetns } from './netns.js';
export { formatGoDuration, parseDurationMs, parseGoDuration } from './duration.js';
export { registeredOr, type MetricLookup } from './metrics.js';
