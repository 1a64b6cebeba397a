import type { NftErrorKind } from '../errors.js';

/** The errno text nft prints for each kind, so the fake's stderr classifies like the real one's. */
export const ERRNO_TEXT: Readonly<Record<Exclude<NftErrorKind, 'invalid' | 'timeout' | 'unknown'>, string>> = {
  'not-found': 'No such file or directory',
  exists: 'File exists',
  busy: 'Device or resource busy',
  'not-supported': 'Operation not supported',
};

/** Why the fake refused one operation; FakeNft turns it into an nft-shaped `NftError`. */
export class Rejection extends Error {
  readonly kind: keyof typeof ERRNO_TEXT;

  constructor(kind: keyof typeof ERRNO_TEXT, detail: string) {
    super(detail);
    this.kind = kind;
  }
}

export const notFound = (detail: string): Rejection => new Rejection('not-found', detail);
export const exists = (detail: string): Rejection => new Rejection('exists', detail);
export const busy = (detail: string): Rejection => new Rejection('busy', detail);
export const notSupported = (detail: string): Rejection => new Rejection('not-supported', detail);
