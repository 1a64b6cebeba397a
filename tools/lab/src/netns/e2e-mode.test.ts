import { afterEach, describe, expect, test, vi } from 'vitest';
import { e2eMode, kernelE2e } from './e2e-mode.js';

describe('e2eMode', () => {
  test.each([
    [undefined, 'auto'],
    ['', 'auto'],
    ['required', 'required'],
    ['REQUIRED', 'required'],
    ['1', 'required'],
    ['true', 'required'],
    ['off', 'off'],
    ['0', 'off'],
    ['skip', 'off'],
    ['whatever', 'auto'],
  ])('KPNG_E2E=%j is %s', (value, mode) => {
    expect(e2eMode(value === undefined ? {} : { KPNG_E2E: value })).toBe(mode);
  });
});

describe('kernelE2e', () => {
  afterEach(() => vi.restoreAllMocks());
  const available = async () => ({ ok: true });
  const unavailable = async () => ({ ok: false, reason: 'no CAP_SYS_ADMIN' });

  test('runs where namespaces can be created', async () => {
    expect(await kernelE2e('suite', { env: {}, probe: available })).toEqual({ run: true });
  });

  test('skips loudly when namespaces are unavailable', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await kernelE2e('suite', { env: {}, probe: unavailable })).toEqual({
      run: false,
      reason: 'no CAP_SYS_ADMIN',
    });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('SKIPPING kernel e2e suite "suite": no CAP_SYS_ADMIN'));
  });

  test('fails instead of skipping when required', async () => {
    await expect(kernelE2e('suite', { env: { KPNG_E2E: 'required' }, probe: unavailable })).rejects.toThrow(
      /KPNG_E2E=required.*no CAP_SYS_ADMIN/,
    );
  });

  test('off skips without probing', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const probe = vi.fn(available);
    expect(await kernelE2e('suite', { env: { KPNG_E2E: 'off' }, probe })).toEqual({
      run: false,
      reason: 'KPNG_E2E=off',
    });
    expect(probe).not.toHaveBeenCalled();
  });
});
