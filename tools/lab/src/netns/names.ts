/**
 * Every namespace the lab creates is named `kpng-t-<pid>-<name>`: the prefix marks it as a test
 * namespace, the pid lets a later run tell whether its creator is still alive.
 */
export const NAMESPACE_PREFIX = 'kpng-t-';

const SHORT_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const OWNED = /^kpng-t-(\d+)-/;

export function namespaceName(name: string, pid: number = process.pid): string {
  if (!SHORT_NAME.test(name)) throw new Error(`namespace name ${JSON.stringify(name)} must match ${SHORT_NAME.source}`);
  return `${NAMESPACE_PREFIX}${pid}-${name}`;
}

/** The pid in a lab namespace's name, or undefined for namespaces that are not the lab's. */
export function ownerPid(namespace: string): number | undefined {
  const match = OWNED.exec(namespace);
  return match === null ? undefined : Number(match[1]);
}
