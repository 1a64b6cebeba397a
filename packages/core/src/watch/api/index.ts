export { ApiSource, type ApiSourceOptions } from './api-source.js';
