/** @kpng/iptables/testing: an in-memory iptables behind the exec seam, with iptables-restore's rules. */
export { FakeIptables, type RecordedRestore } from '../iptables/fake/fake-iptables.js';
export { tokenize } from '../iptables/fake/tables.js';
