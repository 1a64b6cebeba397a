import { describe, expect, it } from 'vitest';
import { generate } from './catalog.js';
import { flipFirstEndpoint, sliceEvent } from './model-events.js';

describe('flipFirstEndpoint', () => {
  const slice = generate('s1k').endpointSlices.find((s) => s.endpoints.length > 0)!;

  it('changes the first endpoint from whatever state it is in, every time', () => {
    const once = flipFirstEndpoint(slice);
    const twice = flipFirstEndpoint(once);
    expect(once.endpoints[0]!.conditions).toEqual({ ready: false, serving: true, terminating: true });
    expect(twice.endpoints[0]!.conditions).toEqual({ ready: true, serving: true, terminating: false });
    // Each flip converts to a model object different from the one before it.
    const [a, b, c] = [slice, once, twice].map((s) =>
      JSON.stringify((sliceEvent(s) as { readonly object: unknown }).object),
    );
    expect(b).not.toEqual(a);
    expect(c).not.toEqual(b);
    expect(once.endpoints.slice(1)).toEqual(slice.endpoints.slice(1));
  });
});
