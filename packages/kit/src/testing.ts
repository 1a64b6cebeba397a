// Fakes of the kit's seams for tests of code built on them: @kpng/kit/testing (never in a program's import graph).
export { AnsweringExecer, type Answer } from './testing/answering-execer.js';
export { ScriptedExecer, type ScriptedCall } from './testing/scripted-execer.js';
export { exposedMetrics, type MetricsAsJSON } from './testing/exposed-metrics.js';
