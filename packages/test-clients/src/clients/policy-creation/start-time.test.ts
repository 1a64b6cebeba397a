import { describe, expect, it } from 'vitest';
import { policy } from '../../../test/support/objects.js';
import { creationStart } from './start-time.js';

describe('creationStart', () => {
  const created = Date.UTC(2026, 0, 23, 20, 10, 17, 800);
  const whole = Date.UTC(2026, 0, 23, 20, 10, 17);

  it('prefers the millisecond annotation, then the live watch event, then creationTimestamp', () => {
    expect(creationStart(policy('a', { created, createdAtAnnotation: created }), created + 12)).toEqual({
      at: created,
      source: 'annotation',
      creationTimestamp: whole,
    });
    expect(creationStart(policy('a', { created }), created + 12)).toEqual({
      at: created + 12,
      source: 'watch',
      creationTimestamp: whole,
    });
    expect(creationStart(policy('a', { created }), undefined)).toEqual({
      at: whole,
      source: 'creationTimestamp',
      creationTimestamp: whole,
    });
    expect(creationStart(policy('a'), undefined)).toBeUndefined();
  });
});
