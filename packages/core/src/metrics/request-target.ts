import { posix } from 'node:path';

/**
 * An HTTP request-target (RFC 9112 section 3.2) read the way Go's `url.ParseRequestURI` reads it:
 * origin form (`/path?query`), absolute form (`http://host/path`), or `*`. Anything else, an invalid
 * percent-escape or a control character is `invalid` (Go answers 400 Bad Request). Never throws.
 */
export type RequestTarget =
  | { readonly kind: 'path'; readonly path: string; readonly rawPath: string; readonly query: string | undefined }
  | { readonly kind: 'asterisk' }
  | { readonly kind: 'invalid' };

const INVALID: RequestTarget = { kind: 'invalid' };
const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;
const CONTROL = /[\x00-\x20\x7f]/;

export function parseRequestTarget(raw: string): RequestTarget {
  if (raw === '*') return { kind: 'asterisk' };
  if (raw === '' || CONTROL.test(raw)) return INVALID;
  let rest = raw;
  if (!rest.startsWith('/')) {
    const authority = ABSOLUTE.exec(rest);
    if (!authority) return INVALID;
    rest = rest.slice(authority[0].length);
    if (rest.startsWith('#')) rest = '';
    if (rest !== '' && !rest.startsWith('/') && !rest.startsWith('?')) return INVALID;
  }
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q);
  const path = unescapePath(rawPath);
  if (path === undefined) return INVALID;
  return { kind: 'path', path: path === '' ? '/' : path, rawPath, query: q < 0 ? undefined : rest.slice(q + 1) };
}

/** Percent-decoding as Go's `unescape(s, encodePath)`: a `%` must be followed by two hex digits. */
function unescapePath(s: string): string | undefined {
  if (!s.includes('%')) return s;
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return undefined;
  try {
    return decodeURIComponent(s);
  } catch {
    // Escapes of bytes that are not UTF-8: Go keeps the bytes; for matching a route, Latin-1 is as good.
    return s.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/**
 * Go's ServeMux `cleanPath`: repeated slashes and `.`/`..` segments removed, a trailing slash kept.
 * ServeMux redirects (301) a request whose path is not clean to the clean one.
 */
export function cleanPath(p: string): string {
  if (p === '') return '/';
  const rooted = p.startsWith('/') ? p : `/${p}`;
  let clean = posix.normalize(rooted);
  if (clean.startsWith('//')) clean = clean.replace(/^\/+/, '/'); // normalize keeps a leading '//' pair
  if (clean.length > 1 && clean.endsWith('/') && !rooted.endsWith('/')) clean = clean.slice(0, -1);
  if (rooted.endsWith('/') && !clean.endsWith('/')) clean += '/';
  return clean;
}

/** A path and query made safe for a `Location` header: every byte outside URI characters escaped. */
export function locationOf(path: string, query: string | undefined): string {
  const escape = (s: string, keep: RegExp) =>
    Array.from(Buffer.from(s, 'utf8'))
      .map((b) => {
        const c = String.fromCharCode(b);
        return b < 0x80 && keep.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
  const p = escape(path, /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/);
  return query === undefined ? p : `${p}?${escape(query, /[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/)}`;
}
