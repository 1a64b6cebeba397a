import { describe, expect, it } from 'vitest';
import { ApiStatusError } from './requests.js';
import { classifyFailure } from './failure-class.js';

const withCode = (code: string, extra: object = {}) => Object.assign(new Error(code), { code, ...extra });

describe('classifyFailure', () => {
  it.each([
    ['a refused LIST (node:http)', withCode('ECONNREFUSED', { errno: -111 }), 'unreachable'],
    [
      'a refused WATCH (node-fetch FetchError)',
      withCode('ECONNREFUSED', { errno: 'ECONNREFUSED', type: 'system' }),
      'unreachable',
    ],
    ['a watch stream cut short', withCode('ERR_STREAM_PREMATURE_CLOSE'), 'unreachable'],
    ['a reset connection', withCode('ECONNRESET'), 'unreachable'],
    [
      'a code on the cause',
      Object.assign(new Error('fetch failed'), { cause: withCode('EHOSTUNREACH') }),
      'unreachable',
    ],
    ['an error status', new ApiStatusError(500, 'LIST: HTTP 500'), 'answered'],
    [
      'a 429 from client-node (statusCode only)',
      Object.assign(new Error('Too Many Requests'), { statusCode: 429 }),
      'answered',
    ],
    ['a LIST timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'answered'],
    ['an unparsable answer', new SyntaxError('Unexpected token < in JSON'), 'answered'],
    ['a DNS failure (may be a misconfiguration)', withCode('ENOTFOUND'), 'answered'],
    ['not an Error at all', 'boom', 'answered'],
  ] as const)('%s is %s', (_what, err, expected) => {
    expect(classifyFailure(err)).toBe(expected);
  });
});
