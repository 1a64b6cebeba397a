import { describe, expect, it } from 'vitest';
import { matches, parseSelector, SelectorParseError } from './selectors.js';

const PROXY = 'service.kubernetes.io/service-proxy-name';
const HEADLESS = 'service.kubernetes.io/headless';

describe('label selectors', () => {
  const cases: ReadonlyArray<{ selector: string; labels: Record<string, string>; want: boolean }> = [
    { selector: '', labels: { a: '1' }, want: true },
    { selector: 'a', labels: { a: '' }, want: true },
    { selector: 'a', labels: { b: '1' }, want: false },
    { selector: '!a', labels: { b: '1' }, want: true },
    { selector: '!a', labels: { a: '' }, want: false },
    { selector: 'a=1', labels: { a: '1' }, want: true },
    { selector: 'a==1', labels: { a: '1' }, want: true },
    { selector: 'a=1', labels: { a: '2' }, want: false },
    { selector: 'a=1', labels: {}, want: false },
    { selector: 'a!=1', labels: { a: '2' }, want: true },
    { selector: 'a!=1', labels: {}, want: true },
    { selector: 'a!=1', labels: { a: '1' }, want: false },
    { selector: `!${PROXY},!${HEADLESS}`, labels: {}, want: true },
    { selector: `!${PROXY},!${HEADLESS}`, labels: { [PROXY]: 'other' }, want: false },
    { selector: `!${PROXY},!${HEADLESS}`, labels: { [HEADLESS]: '' }, want: false },
    { selector: `${PROXY}=mine,!${HEADLESS}`, labels: { [PROXY]: 'mine' }, want: true },
    { selector: `${PROXY}=mine,!${HEADLESS}`, labels: { [PROXY]: 'other' }, want: false },
    { selector: `${PROXY}=mine,!${HEADLESS}`, labels: { [PROXY]: 'mine', [HEADLESS]: '' }, want: false },
    { selector: ' a = 1 , b ', labels: { a: '1', b: 'x' }, want: true },
  ];
  it.each(cases)('$selector on $labels -> $want', ({ selector, labels, want }) => {
    expect(matches(parseSelector(selector), labels)).toBe(want);
  });

  it.each(['a in (1,2)', '=1', '!', 'a b=1'])('rejects %j', (selector) => {
    expect(() => parseSelector(selector)).toThrow(SelectorParseError);
  });
});
