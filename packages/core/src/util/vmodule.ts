/**
 * klog's `--vmodule`: per-file verbosity. A pattern without a slash matches a source file's base name
 * without its extension (`sync-loop=4` for `sync-loop.js`); one with a slash matches the whole full path
 * without extension. `*` and `?` glob within a path segment, as Go's `filepath.Match`. A matching rule
 * can only raise the verbosity of that file's lines above `-v`, never lower it (as klog).
 */
export interface VModuleRule {
  readonly filePattern: string;
  readonly verbosity: number;
}

/** `pattern=N,...` as klog parses it; throws naming the malformed item. */
export function parseVModule(text: string): VModuleRule[] {
  if (text.trim() === '') return [];
  return text.split(',').map((item) => {
    const m = /^([^=]+)=(\d+)$/.exec(item.trim());
    if (!m || Number(m[2]) > 0xffff_ffff) throw new Error(`${JSON.stringify(item)} does not have the pattern=N format`);
    return { filePattern: m[1]!, verbosity: Number(m[2]) };
  });
}

interface CompiledRule {
  readonly fullPath: boolean;
  readonly re: RegExp;
  readonly verbosity: number;
}

export type VModuleMatcher = (path: string) => number | undefined;

/** The verbosity the first matching rule gives `path` (a source file, with or without extension). */
export function vmoduleMatcher(rules: readonly VModuleRule[]): VModuleMatcher | undefined {
  if (rules.length === 0) return undefined;
  const compiled: CompiledRule[] = rules.map((r) => ({
    fullPath: r.filePattern.includes('/'),
    re: globToRegExp(r.filePattern),
    verbosity: r.verbosity,
  }));
  const cache = new Map<string, number | undefined>();
  return (path) => {
    if (cache.has(path)) return cache.get(path);
    const full = path.replace(/^file:\/\//, '').replace(/\.[cm]?[jt]sx?$/, '');
    const base = full.slice(full.lastIndexOf('/') + 1);
    const found = compiled.find((c) => c.re.test(c.fullPath ? full : base))?.verbosity;
    if (cache.size < 4096) cache.set(path, found);
    return found;
  };
}

function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        const body = pattern.slice(i + 1, end).replace(/^\^/, '!');
        out += `[${body.startsWith('!') ? '^' : ''}${body.replace(/^!/, '').replace(/[\\\]]/g, '\\$&')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
