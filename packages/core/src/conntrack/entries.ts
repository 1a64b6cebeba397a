/** `conntrack -L` text output -> flows. Only what stale-flow cleanup needs is kept. */

export interface Flow {
  readonly proto: string;
  readonly origSrc: string;
  readonly origDst: string;
  readonly origDport: number;
  /** The reply's source: the endpoint when the flow was DNATed, else the original destination. */
  readonly replySrc: string;
  readonly replySport: number;
}

/** Parses one line; undefined for lines that are not flows (headers, summaries). */
export function parseFlow(line: string): Flow | undefined {
  const tokens = line.trim().split(/\s+/);
  const proto = tokens[0];
  if (proto === undefined || proto === '') return undefined;
  const values: Record<string, string[]> = {};
  for (const token of tokens) {
    const eq = token.indexOf('=');
    if (eq <= 0) continue;
    (values[token.slice(0, eq)] ??= []).push(token.slice(eq + 1));
  }
  const [origSrc, replySrc] = values['src'] ?? [];
  const [origDst] = values['dst'] ?? [];
  const [, replySport] = values['sport'] ?? [];
  const [origDport] = values['dport'] ?? [];
  if (
    origSrc === undefined ||
    origDst === undefined ||
    replySrc === undefined ||
    origDport === undefined ||
    replySport === undefined
  ) {
    return undefined;
  }
  return { proto, origSrc, origDst, origDport: Number(origDport), replySrc, replySport: Number(replySport) };
}

export function parseFlows(text: string): Flow[] {
  const flows: Flow[] = [];
  for (const line of text.split('\n')) {
    const flow = parseFlow(line);
    if (flow !== undefined) flows.push(flow);
  }
  return flows;
}

/** "conntrack v1.4.7 (conntrack-tools): 3 flow entries have been deleted." -> 3 */
export function deletedCount(stderr: string): number {
  const match = /(\d+) flow entries have been deleted/.exec(stderr);
  return match === null ? 0 : Number(match[1]);
}
