/** Listen addresses: `unix:///path`, `host:port`, `[v6]:port`. */
export type ListenAddress =
  | { readonly kind: 'unix'; readonly path: string }
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number };

export function parseListenAddress(text: string): ListenAddress {
  if (text.startsWith('unix://')) {
    const path = text.slice('unix://'.length);
    if (!path.startsWith('/'))
      throw new Error(
        `invalid address ${JSON.stringify(text)}: unix socket path must be absolute (unix:///run/kpng/kpng.sock)`,
      );
    return { kind: 'unix', path };
  }
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\[\]]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new Error(`invalid address ${JSON.stringify(text)}: expected host:port, [ipv6]:port or unix:///path`);
  }
  return { kind: 'tcp', host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function formatListenAddress(a: ListenAddress): string {
  return a.kind === 'unix'
    ? `unix://${a.path}`
    : a.host.includes(':')
      ? `[${a.host}]:${a.port}`
      : `${a.host}:${a.port}`;
}
