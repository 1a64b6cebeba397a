/** @kpng/netpol/testing: the enforcer set up for measuring the test clients against it. */
export { CLIENT_LABELS, ClientEgressEnforcer, type ClientEgressOptions, type EnforcedChange } from './client-egress.js';
