/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What sock_lb.c and stale_udp.c share: an endpoint (or Service) address and port, and the revnat
 * map, (socket cookie, endpoint) -> the Service address the socket asked for. Byte for byte as
 * src/maps/layout.ts. stale_udp.c's revnat is sock_lb.c's, taken over by fd before loading.
 */
#ifndef KPNG_REVNAT_H
#define KPNG_REVNAT_H

struct ep {
	__be32 addr[4];
	__be16 port;
	__u16 pad;
};

struct revnat_key {
	__u64 socket_cookie;
	__be32 addr[4];
	__be16 port;
	__u16 pad;
	__u32 pad2;
};

/* Sizes are userspace's to set before loading (bpf_map__set_max_entries). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct revnat_key);
	__type(value, struct ep);
} revnat SEC(".maps");

#endif
