import {
  ASYMMETRIC_MATCHERS_OBJECT,
  chai,
  type ExpectStatic,
  GLOBAL_EXPECT,
  JestAsymmetricMatchers,
  JestChaiExpect,
  JestExtend,
  setState,
} from '@vitest/expect';

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

/**
 * vitest's `expect` outside vitest: the same matchers (`@vitest/expect`, the package vitest builds its
 * own `expect` from, on chai), for suites that run as a plain script in the lab's VM
 * (`runGuestSuite`). No snapshots, `expect.poll` or `expect.soft`: those need vitest's runner.
 */
export const guestExpect: ExpectStatic = Object.assign(
  (value: unknown, message?: string) => chai.expect(value, message),
  chai.expect,
  (globalThis as unknown as Record<symbol, object>)[ASYMMETRIC_MATCHERS_OBJECT],
) as unknown as ExpectStatic;

setState({ assertionCalls: 0, isExpectingAssertions: false, expectedAssertionsNumber: null }, guestExpect);
(globalThis as unknown as Record<symbol, unknown>)[GLOBAL_EXPECT] = guestExpect;
