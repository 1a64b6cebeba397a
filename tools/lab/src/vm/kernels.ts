/**
 * The kernels the lab boots. Each is a Debian `linux-image-*-amd64` package resolved through apt's
 * own configuration (the host's sources), so no mirror is named here.
 */
export interface KernelSpec {
  /** Short name used in test titles and cache folders. */
  readonly id: string;
  /** The meta package whose dependency names the current image package. */
  readonly metaPackage: string;
  /** A suite the host's apt sources may lack, read through a private apt list (`private-apt.ts`). */
  readonly release?: string;
}

export const KERNELS = {
  /** Debian 12 (bookworm), what many LTS distributions run; nftables before 6.2 behaves differently. */
  '6.1': { id: '6.1', metaPackage: 'linux-image-amd64' },
  /** bookworm-backports, from the host's own Debian mirror. */
  '6.12': { id: '6.12', metaPackage: 'linux-image-amd64', release: 'bookworm-backports' },
} as const satisfies Record<string, KernelSpec>;

export type KernelId = keyof typeof KERNELS;

/** The modules the initramfs loads to mount the host's root over 9p with an overlay on top. */
export const INITRAMFS_MODULES = ['virtio_pci', '9pnet_virtio', '9p', 'overlay'] as const;
