import { join } from 'node:path';
import { REPO_ROOT } from '../workspace.js';
import { modelTypesFile, unknownFields } from './dts-fields.js';

export const NODE_MODULES = join(REPO_ROOT, 'node_modules');

/** The kinds deploy/ uses, imported statically (the bundler resolves each path). */
const MODELS: Readonly<Record<string, () => Promise<unknown>>> = {
  'v1/ConfigMap': async () => (await import('kubernetes-models/v1/ConfigMap')).ConfigMap,
  'v1/Service': async () => (await import('kubernetes-models/v1/Service')).Service,
  'v1/ServiceAccount': async () => (await import('kubernetes-models/v1/ServiceAccount')).ServiceAccount,
  'apps/v1/DaemonSet': async () => (await import('kubernetes-models/apps/v1/DaemonSet')).DaemonSet,
  'apps/v1/Deployment': async () => (await import('kubernetes-models/apps/v1/Deployment')).Deployment,
  'rbac.authorization.k8s.io/v1/ClusterRole': async () =>
    (await import('kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole')).ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': async () =>
    (await import('kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding')).ClusterRoleBinding,
};

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

/**
 * Validates one built-in Kubernetes object: the JSON schema of its kubernetes-models class
 * (types, required fields, enums, formats) plus unknown-field detection. Returns the problems,
 * empty when valid; throws when the apiVersion/kind has no model (a CRD, or a typo).
 */
export async function validateObject(obj: { apiVersion: string; kind: string }): Promise<string[]> {
  const types = modelTypesFile(NODE_MODULES, obj.apiVersion, obj.kind);
  if (!types) throw new Error(`no kubernetes-models model for ${obj.apiVersion} ${obj.kind}`);
  const load = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!load) throw new Error(`${obj.apiVersion} ${obj.kind}: add it to MODELS in tools/release/src/k8s/validate.ts`);
  const Model = (await load()) as unknown as ModelClass;
  const problems: string[] = [];
  try {
    new Model(obj).validate();
  } catch (e) {
    const errors = (e as { errors?: { instancePath: string; message?: string }[] }).errors;
    if (errors?.length) for (const x of errors) problems.push(`${x.instancePath || '/'} ${x.message ?? 'is invalid'}`);
    else problems.push((e as Error).message);
  }
  for (const f of unknownFields(obj, types, NODE_MODULES)) problems.push(`${f}: unknown field`);
  return problems;
}
