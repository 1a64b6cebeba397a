import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from './api-request.js';

/** A response body stream (what `readBody` reads of an `IncomingMessage`). */
const body = (...chunks: string[]): PassThrough & IncomingMessage => {
  const stream = new PassThrough();
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return stream as PassThrough & IncomingMessage;
};

describe('readBody', () => {
  it('reads a whole body', async () => {
    expect(await readBody(body('{"kind":', '"Status"}'))).toBe('{"kind":"Status"}');
  });

  it('refuses a body over its bound and destroys the response', async () => {
    const res = body('x'.repeat(600), 'y'.repeat(600));
    await expect(readBody(res, 1000)).rejects.toThrow("the API server's answer is over 1000 bytes");
    expect(res.destroyed).toBe(true);
  });
});
