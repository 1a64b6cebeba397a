import { readFileSync } from 'node:fs';

/** One instruction, continuation lines joined, comments dropped. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  readonly from: string;
  readonly name?: string;
  readonly instructions: readonly Instruction[];
}

export interface Dockerfile {
  readonly stages: readonly Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const stages: { from: string; name?: string; instructions: Instruction[] }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      const next = lines[i]!;
      if (/^\s*#/.test(next)) continue;
      line = line.replace(/\\\s*$/, ' ') + next.trim();
    }
    const m = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(line);
    if (!m) throw new Error(`line ${start + 1}: cannot parse ${JSON.stringify(line)}`);
    const ins: Instruction = { keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start + 1 };
    if (ins.keyword === 'FROM') {
      const f = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!f) throw new Error(`line ${ins.line}: cannot parse FROM ${ins.args}`);
      stages.push({ from: f[1]!, ...(f[2] ? { name: f[2] } : {}), instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`line ${ins.line}: ${ins.keyword} before FROM`);
      stage.instructions.push(ins);
    }
  }
  return { stages };
}

export function readDockerfile(path: string): Dockerfile {
  return parseDockerfile(readFileSync(path, 'utf8'));
}

export function finalStage(d: Dockerfile): Stage {
  const s = d.stages.at(-1);
  if (!s) throw new Error('no FROM');
  return s;
}

/** ENTRYPOINT (exec form only: a shell-form entrypoint would not receive SIGTERM). */
export function entrypoint(stage: Stage): string[] {
  const e = stage.instructions.filter((i) => i.keyword === 'ENTRYPOINT').at(-1);
  if (!e) throw new Error('no ENTRYPOINT in the final stage');
  const v = JSON.parse(e.args) as unknown;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new Error(`ENTRYPOINT must be a JSON array of strings: ${e.args}`);
  return v as string[];
}

export function runCommands(stage: Stage): string[] {
  return stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
}

/** Packages named by `npm pack -w NAME ...` in a stage. */
export function packedWorkspaces(stage: Stage): string[] {
  const out: string[] = [];
  for (const cmd of runCommands(stage)) {
    for (const part of cmd.split(/&&|;/)) {
      if (!/\bnpm\s+pack\b/.test(part)) continue;
      for (const m of part.matchAll(/(?:-w|--workspace)[=\s]+(\S+)/g)) out.push(m[1]!);
    }
  }
  return out;
}

/** Debian packages installed by `apt-get install` in a stage. */
export function aptPackages(stage: Stage): string[] {
  const out: string[] = [];
  for (const cmd of runCommands(stage)) {
    for (const part of cmd.split(/&&|;/)) {
      const m = /\bapt-get\s+install\s+(.*)$/.exec(part.trim());
      if (m) out.push(...m[1]!.split(/\s+/).filter((w) => w && !w.startsWith('-')));
    }
  }
  return out;
}

/** Symbolic links made by `ln -s[f] TARGET LINK` in a stage: link -> target. */
export function symlinks(stage: Stage): Map<string, string> {
  const out = new Map<string, string>();
  for (const cmd of runCommands(stage)) {
    for (const m of cmd.matchAll(/\bln\s+-s[f]?\s+(\S+)\s+(\S+)/g)) out.set(m[2]!, m[1]!);
  }
  return out;
}

/** The stage's last WORKDIR (a container starts there), or undefined when the stage sets none. */
export function workdir(stage: Stage): string | undefined {
  return stage.instructions.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args;
}

export function user(stage: Stage): string | undefined {
  return stage.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args;
}

/** `KEY=VALUE` pairs of the stage's ENV or LABEL instructions (values may be double-quoted), later ones winning. */
export function assignments(stage: Stage, keyword: 'ENV' | 'LABEL'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of stage.instructions.filter((x) => x.keyword === keyword)) {
    for (const m of i.args.matchAll(/([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      out[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
    }
  }
  return out;
}

/** Ports of the stage's EXPOSE instructions, as `<port>/<proto>` (tcp when not given). */
export function exposedPorts(stage: Stage): string[] {
  return stage.instructions
    .filter((i) => i.keyword === 'EXPOSE')
    .flatMap((i) => i.args.split(/\s+/))
    .map((p) => (p.includes('/') ? p : `${p}/tcp`));
}

/** Folders made by `mkdir -p DIRS && chown OWNER DIRS` in a stage: folder -> owner. */
export function ownedDirs(stage: Stage): Map<string, string> {
  const out = new Map<string, string>();
  for (const cmd of runCommands(stage)) {
    const m = /\bmkdir\s+-p\s+([^&;]+?)\s*&&\s*chown\s+(\S+)\s+([^&;]+)/.exec(cmd);
    if (m) for (const d of m[3]!.trim().split(/\s+/)) out.set(d, m[2]!);
  }
  return out;
}
