import { describe, expect, it } from 'vitest';
import { connectMatcher, httpReplyMatcher, replyPrefixMatcher } from './matcher.js';

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

  it('http-reply accepts what makes curl exit 0: any HTTP status line, nothing else', () => {
    expect(httpReplyMatcher.needsReply).toBe(true);
    for (const ok of ['HTTP/1.1 200 OK\r', 'HTTP/1.0 404 Not Found', 'HTTP/2 503'])
      expect(httpReplyMatcher.accepts(ok)).toBe(true);
    for (const bad of [undefined, '', 'web-1 198.18.1.10', 'HTTP/1.1', 'SSH-2.0-OpenSSH'])
      expect(httpReplyMatcher.accepts(bad)).toBe(false);
    expect(httpReplyMatcher.request?.('2001:db8::5', 80)).toContain('Host: [2001:db8::5]:80\r\n');
  });
});
