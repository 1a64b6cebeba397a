/** @kpng/core/testing: fakes and fixture builders for tests of core and of backends. */
export { FakeClock } from '../util/fake-clock.js';
