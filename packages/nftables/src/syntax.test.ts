import { describe, expect, test } from 'vitest';
import { RESERVED_WORDS } from './reserved-words.js';
import { checkComment, checkElementPart, checkName, checkRuleText, checkTypeExpression } from './syntax.js';

describe('checkName', () => {
  test.each([
    'kpng',
    'services',
    'filter-input',
    'service-ULMVA6XW-ns1/svc1/tcp/p80',
    'endpoint-ABC__10.0.0.1/80',
    '_x',
    'A.b-c/d',
    'x'.repeat(255),
  ])('accepts %j', (name) => {
    expect(checkName('chain', name)).toBeUndefined();
  });

  test.each([
    ['', /is empty/],
    ['.hidden', /must match/],
    ['1abc', /must match/],
    ['has space', /must match/],
    ['semi;colon', /must match/],
    ['quote"d', /must match/],
    ['new\nline', /must match/],
    ['brace{', /must match/],
    ['at@', /must match/],
    ['dollar$', /must match/],
    ['x'.repeat(256), /longer than 255 bytes/],
    ['counter', /nft keyword/],
    ['drop', /nft keyword/],
    ['ll', /nft keyword/],
  ])('refuses %j', (name, reason) => {
    expect(checkName('chain', name)).toMatch(reason);
  });

  test('keywords are case-sensitive, so capitalised words are names', () => {
    expect(RESERVED_WORDS.has('counter')).toBe(true);
    expect(checkName('chain', 'Counter')).toBeUndefined();
  });
});

describe('checkComment', () => {
  test.each(['', 'ns/svc:p80', "it's fine", 'a\\b $x {}; # @s', 'é ñ 日本', 'x'.repeat(128), 'é'.repeat(64)])(
    'accepts %j',
    (comment) => {
      expect(checkComment(comment)).toBeUndefined();
    },
  );

  test.each([
    ['say "hi"', /double quote/],
    ['two\nlines', /control characters/],
    ['tab\there', /control characters/],
    ['nul\u0000', /control characters/],
    ['x'.repeat(129), /longer than 128 bytes/],
    ['é'.repeat(65), /longer than 128 bytes/],
    ['lone \uD800 surrogate', /well-formed/],
  ])('refuses %j', (comment, reason) => {
    expect(checkComment(comment)).toMatch(reason);
  });
});

describe('checkRuleText', () => {
  test.each([
    'ip daddr . meta l4proto . th dport vmap @service-ips',
    'numgen random mod 2 vmap { 0 : goto a, 1 : goto b }',
    'meta iifname "eth0" accept',
    'ip saddr != 198.18.0.0/16 jump mark-for-masquerade',
    'update @affinity-x { ip saddr }',
  ])('accepts %j', (rule) => {
    expect(checkRuleText(rule)).toBeUndefined();
  });

  test.each([
    ['', /empty/],
    ['accept ; flush ruleset', /";"/],
    ['accept # hidden', /"#"/],
    ['accept \\', /"\\\\"/],
    ['accept\nflush ruleset', /line breaks/],
    ['iifname "eth0 accept', /unterminated quoted/],
    ['ip daddr { 1.2.3.4', /unclosed bracket/],
    ['ip daddr 1.2.3.4 }', /unbalanced "}"/],
    ['ip daddr { 1.2.3.4 ]', /unbalanced "]"/],
  ])('refuses %j', (rule, reason) => {
    expect(checkRuleText(rule)).toMatch(reason);
  });
});

describe('checkElementPart', () => {
  test.each([
    ['198.19.0.1', false],
    ['2001:db8::1', false],
    ['10.0.0.0/8', false],
    ['80-90', false],
    ['tcp', false],
    ['"eth0"', false],
    ['drop', true],
    ['goto service-X-ns/svc/tcp/p80', true],
    ['jump chain_1', true],
  ])('accepts %j (verdicts allowed: %s)', (part, allowVerdict) => {
    expect(checkElementPart(part, allowVerdict)).toBeUndefined();
  });

  test.each([
    ['1.2.3.4 . 80', true],
    ['1.2.3.4, 5.6.7.8', false],
    ['1 }', false],
    ['goto x', false],
    ['goto counter', true],
    ['goto a b', true],
    ['"quote"d"', false],
    ['', false],
  ])('refuses %j (verdicts allowed: %s)', (part, allowVerdict) => {
    expect(checkElementPart(part, allowVerdict)).toBeDefined();
  });
});

describe('checkTypeExpression', () => {
  test.each([
    ['ipv4_addr', false],
    ['ipv4_addr . inet_proto . inet_service', false],
    ['ip daddr . tcp dport', false],
    ['ipv4_addr . inet_proto . inet_service : verdict', true],
    ['ip daddr : ip daddr . tcp dport', true],
  ])('accepts %j (map: %s)', (expression, isMap) => {
    expect(checkTypeExpression('type', expression, isMap)).toBeUndefined();
  });

  test.each([
    ['ipv4_addr ;', false],
    ['ipv4_addr : verdict', false],
    ['ipv4_addr', true],
    ['a : b : c', true],
    ['ipv4_addr .', false],
    ['IPV4', false],
  ])('refuses %j (map: %s)', (expression, isMap) => {
    expect(checkTypeExpression('type', expression, isMap)).toBeDefined();
  });
});
