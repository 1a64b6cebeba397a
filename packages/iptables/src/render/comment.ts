/**
 * `-m comment --comment "..."` from text that may come from the API (namespace, name, port name):
 * characters outside a small safe set become `_`, so no name can close the quote, start a new
 * option or line, or exceed xt_comment's 255 bytes. Chain names are hashes and never depend on this.
 */
const UNSAFE = /[^A-Za-z0-9 ./:_\-[\]>]/g;
const MAX_COMMENT = 200;

export function comment(text: string): string {
  return `-m comment --comment "${text.replace(UNSAFE, '_').slice(0, MAX_COMMENT)}"`;
}
