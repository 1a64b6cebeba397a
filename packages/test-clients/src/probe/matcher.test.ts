import { describe, expect, it } from 'vitest';
import { connectMatcher, replyPrefixMatcher } from './matcher.js';

describe('matchers', () => {
  it('connect accepts any completed connection and needs no reply', () => {
    expect(connectMatcher.needsReply).toBe(false);
    expect(connectMatcher.accepts(undefined)).toBe(true);
  });

  it('reply-prefix matches the name as a whole word', () => {
    const m = replyPrefixMatcher('web-1');
    expect(m.needsReply).toBe(true);
    expect(m.accepts('web-1 198.18.1.10')).toBe(true);
    expect(m.accepts('web-1')).toBe(true);
    expect(m.accepts('web-1\tx')).toBe(true);
    expect(m.accepts('web-10 198.18.1.10')).toBe(false);
    expect(m.accepts('web-2 198.18.1.10')).toBe(false);
    expect(m.accepts(undefined)).toBe(false);
  });
});
