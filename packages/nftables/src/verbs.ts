/**
 * The nft commands a transaction can queue (knftables' verb set). Which verbs apply to which
 * object kind is decided by each kind's `validate`.
 */
export type Verb = 'add' | 'create' | 'insert' | 'replace' | 'delete' | 'destroy' | 'flush' | 'reset';

export const VERBS: readonly Verb[] = ['add', 'create', 'insert', 'replace', 'delete', 'destroy', 'flush', 'reset'];
