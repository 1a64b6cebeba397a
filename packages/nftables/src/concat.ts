export type ConcatPart = string | number | readonly (string | number)[];

/**
 * Builds rule text from pieces separated by single spaces, except right after `@`, so
 * `concat('ip daddr', '@', setName)` gives `ip daddr @service-ips`. Empty pieces are skipped.
 */
export function concat(...parts: readonly ConcatPart[]): string {
  let text = '';
  for (const part of parts.flat()) {
    const piece = String(part).trim();
    if (piece === '') continue;
    text += text === '' || text.endsWith('@') ? piece : ` ${piece}`;
  }
  return text;
}
