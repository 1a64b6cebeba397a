// docs/ARCHITECTURE.md walks one Service change through the pipeline file by file: every file it
// names there must exist and every function, class or field it names must be in the files of its
// hop, so a rename or a move that forgets the document fails here. Paths elsewhere in the document
// (but the kit table's "replaces" column, which names what is gone) must exist too.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const WALK = '## One Service change, file by file';
/** The most hops the walk may take (issue 24: "at most ~10"). */
const MAX_HOPS = 10;

/** What `path` is under the repository: `packages/`-relative when it starts with a package folder. */
const isPath = (token: string) =>
  /^[\w@.-]+(\/[\w.-]+)*\/?$/.test(token) && /(\.(ts|mjs|js|json|md|proto|c|h)|\/)$/.test(token);
const isName = (token: string) => /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$/.test(token) && !/\.(ts|mjs|md)$/.test(token);

interface Problem {
  readonly where: string;
  readonly problem: string;
}

/** The section of `doc` under `heading`, up to the next `## `. */
function section(doc: string, heading: string): string {
  const start = doc.indexOf(heading);
  if (start < 0) return '';
  const end = doc.indexOf('\n## ', start + heading.length);
  return doc.slice(start, end < 0 ? undefined : end);
}

const tokens = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/**
 * The walk's problems: its numbered hops (more than {@link MAX_HOPS} is one), each path that does
 * not resolve (a full path under `packages/`, a short one beside a file named before it in the
 * walk or in a folder above), each name not found in the hop's files (`A.b`: both words).
 */
function walkProblems(doc: string, exists: (path: string) => boolean, read: (path: string) => string): Problem[] {
  const problems: Problem[] = [];
  const walk = section(doc, WALK);
  if (walk === '') return [{ where: WALK, problem: 'no such section' }];
  // The intro (before hop 1), then one block per numbered hop with its indented lines (up to a
  // blank line: the text after the list is not a hop).
  const blocks = walk.split(/\n(?=\d+\. )/).map((b, i) => (i === 0 ? b : (b.split('\n\n')[0] ?? '')));
  const hops = blocks.length - 1;
  if (hops < 1 || hops > MAX_HOPS) problems.push({ where: WALK, problem: `${hops} hops (1 to ${MAX_HOPS})` });
  const seenDirs: string[] = [];
  const named: string[] = [];
  const intro: string[] = [];
  const candidates = (token: string): string[] => {
    if (/^(core|nft|nftables|iptables|ipvs|ebpf|kit|kube-proxy|netpol|test-clients|win-kernel)\//.test(token))
      return [join('packages', token)];
    if (token.startsWith('packages/') || token.startsWith('tools/')) return [token];
    const out: string[] = [];
    for (const dir of seenDirs) for (let d = dir; d.split('/').length > 2; d = dirname(d)) out.push(join(d, token));
    return out;
  };
  for (const [index, block] of blocks.entries()) {
    const where = index === 0 ? 'intro' : `hop ${index}`;
    const files: string[] = [];
    for (const token of tokens(block).filter(isPath)) {
      const found = candidates(token).find(exists);
      if (found === undefined) problems.push({ where, problem: `no file ${token}` });
      else {
        if (!found.endsWith('/')) files.push(found);
        seenDirs.unshift(dirname(found.endsWith('/') ? join(found, 'x') : found));
      }
    }
    // Names are looked up in the hop's files and the intro's (the wiring module); a hop that names
    // no file of its own ("Back in `sync-loop.ts`", resolved above) in every file named so far.
    const scope = files.length > 0 ? [...new Set([...files, ...intro])] : named;
    const texts = scope.map(read);
    for (const name of tokens(block).filter(isName)) {
      const words = name.split('.');
      if (!words.every((w) => texts.some((t) => new RegExp(String.raw`\b${w}\b`).test(t))))
        problems.push({ where, problem: `${name} is in none of ${scope.join(', ')}` });
    }
    named.push(...files);
    if (index === 0) intro.push(...files);
  }
  return problems;
}

/** Paths named outside the walk that do not exist (the kit table's second column names what is gone). */
function pathProblems(doc: string, exists: (path: string) => boolean): Problem[] {
  const problems: Problem[] = [];
  const outside = doc.replace(section(doc, WALK), '');
  for (const line of outside.split('\n')) {
    // A table row `| kit API | what it replaces |`: only the first column names current code.
    const text = line.startsWith('|') ? (line.split('|')[1] ?? '') : line;
    for (const token of tokens(text).filter(isPath)) {
      if (token.startsWith('@') || token.startsWith('/') || !token.includes('/')) continue;
      const options = [token, join('packages', token)];
      if (!options.some(exists)) problems.push({ where: line.slice(0, 60), problem: `no file ${token}` });
    }
  }
  return problems;
}

const onDisk = (path: string) => existsSync(join(root, path));
const readDisk = (path: string) => readFileSync(join(root, path), 'utf8');

describe('docs/ARCHITECTURE.md', () => {
  const doc = readDisk('docs/ARCHITECTURE.md');

  it(`walks one Service change in at most ${MAX_HOPS} hops through files and names that exist`, () => {
    expect(walkProblems(doc, onDisk, readDisk)).toEqual([]);
  });

  it('names only files that exist elsewhere (but what the kit replaced)', () => {
    expect(pathProblems(doc, onDisk)).toEqual([]);
  });

  it('the checks fail on a walk that names a missing file, a missing name or too many hops', () => {
    const files: Record<string, string> = { 'packages/core/src/a/one.ts': 'export class One { run() {} }' };
    const exists = (p: string) => p in files || Object.keys(files).some((f) => f.startsWith(p));
    const read = (p: string) => files[p] ?? '';
    const walk = (hops: string[]) => `${WALK}\n\nintro\n\n${hops.map((h, i) => `${i + 1}. ${h}`).join('\n')}\n`;
    expect(walkProblems(walk(['`core/src/a/one.ts` (`One.run`)']), exists, read)).toEqual([]);
    expect(walkProblems(walk(['`core/src/a/two.ts`']), exists, read)).toEqual([
      { where: 'hop 1', problem: 'no file core/src/a/two.ts' },
    ]);
    expect(walkProblems(walk(['`core/src/a/one.ts` (`One.stop`)']), exists, read)).toEqual([
      { where: 'hop 1', problem: 'One.stop is in none of packages/core/src/a/one.ts' },
    ]);
    expect(walkProblems(walk(['`core/src/a/one.ts`', 'then `one.ts`']), exists, read)).toEqual([]);
    expect(walkProblems(walk(Array<string>(11).fill('`core/src/a/one.ts`')), exists, read)).toEqual([
      { where: WALK, problem: '11 hops (1 to 10)' },
    ]);
    expect(pathProblems('see `nft/src/gone.ts`\n| `kit` | `core/src/old.ts` |\n', exists)).toEqual([
      { where: 'see `nft/src/gone.ts`', problem: 'no file nft/src/gone.ts' },
    ]);
  });
});
