// What a suite needs to run as a plain script inside the lab's VM (`runScriptInVm` runs it there):
// the case runner and vitest's matchers without vitest.
export { guestExpect } from './expect.js';
export {
  GUEST_REPORT_ENV,
  runGuestSuite,
  type GuestCase,
  type GuestSuite,
  type RunGuestSuiteOptions,
} from './suite.js';
