import type { LabelSelector, Labels, SelectorRequirement } from './types.js';

/** The selector that selects everything (`{}`). */
export const EVERYTHING: LabelSelector = { matchLabels: {}, matchExpressions: [] };

function matchesRequirement(requirement: SelectorRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  switch (requirement.operator) {
    case 'In':
      return has && requirement.values.includes(labels[requirement.key] as string);
    case 'NotIn':
      return !has || !requirement.values.includes(labels[requirement.key] as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/**
 * `metav1.LabelSelector` semantics: every `matchLabels` pair and every `matchExpressions`
 * requirement must hold (an empty selector selects everything). `NotIn` also matches objects
 * without the key, as upstream's selectors do.
 */
export function matchesSelector(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels)) {
    if (!Object.hasOwn(labels, key) || labels[key] !== value) return false;
  }
  return selector.matchExpressions.every((requirement) => matchesRequirement(requirement, labels));
}
