// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * kpng stale UDP flows: a UDP socket iterator (`iter/udp`, Linux 5.9) run by userspace after a sync
 * removed endpoints of UDP Services.
 *
 * A connected UDP socket keeps the endpoint sock_lb.c gave it at connect(): socket load balancing
 * makes no conntrack entry, so there is none to clear. Instead this program walks the UDP sockets
 * of one network namespace (the namespace of the process that creates the iterator) and finds the
 * connected ones that sock_lb.c balanced (a `revnat` entry for the socket cookie and its peer) to a
 * (Service address, endpoint) pair userspace put in `stale`. Built twice (scripts/build-bpf.mjs):
 *
 *   stale_udp_destroy.o  (-DKPNG_SOCK_DESTROY) destroys each such socket with bpf_sock_destroy
 *                        (a kfunc, Linux 6.5): the application gets ECONNABORTED and reconnects,
 *                        through the maps, to a live endpoint.
 *   stale_udp.o          only counts them, for kernels without bpf_sock_destroy (the kfunc would
 *                        make the whole object fail to load there).
 *
 * No vmlinux.h: the few kernel structures read are declared here with only the fields used, and
 * preserve_access_index makes libbpf relocate each field to the running kernel's offset (CO-RE,
 * from /sys/kernel/btf/vmlinux).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "revnat.h"

#define AF_INET 2
#define AF_INET6 10
/* A connected UDP socket's state (TCP_ESTABLISHED in include/net/tcp_states.h). */
#define SK_ESTABLISHED 1

struct in6_addr {
	union {
		__be32 u6_addr32[4];
	} in6_u;
} __attribute__((preserve_access_index));

struct sock_common {
	__be32 skc_daddr;
	__be16 skc_dport;
	unsigned short skc_family;
	volatile unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
} __attribute__((preserve_access_index));

struct udp_sock;
struct bpf_iter_meta;

struct bpf_iter__udp {
	struct bpf_iter_meta *meta;
	struct udp_sock *udp_sk;
} __attribute__((preserve_access_index));

/* A (Service address, endpoint) pair a sync removed: sockets balanced from one to the other are stale. */
struct stale_key {
	struct ep service;
	struct ep endpoint;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct stale_key);
	__type(value, __u32);
} stale SEC(".maps");

/* [0] stale sockets found, [1] destroyed, [2] bpf_sock_destroy refused. Userspace zeroes them per walk. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

#ifdef KPNG_SOCK_DESTROY
extern int bpf_sock_destroy(struct sock_common *sk) __ksym;
#endif

static __always_inline void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&counts, &which);
	if (n)
		__sync_fetch_and_add(n, 1);
}

SEC("iter/udp")
int kpng_stale_udp(struct bpf_iter__udp *ctx)
{
	struct sock *sk = (struct sock *)ctx->udp_sk;
	if (!sk)
		return 0;
	if (sk->__sk_common.skc_state != SK_ESTABLISHED)
		return 0; /* not connected: balanced per datagram at sendmsg, never stale */

	struct revnat_key rkey = { .socket_cookie = bpf_get_socket_cookie(sk), .port = sk->__sk_common.skc_dport };
	unsigned short family = sk->__sk_common.skc_family;
	if (family == AF_INET) {
		rkey.addr[0] = sk->__sk_common.skc_daddr;
	} else if (family == AF_INET6) {
		rkey.addr[0] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[0];
		rkey.addr[1] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[1];
		rkey.addr[2] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[2];
		rkey.addr[3] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[3];
	} else {
		return 0;
	}
	struct ep *service = bpf_map_lookup_elem(&revnat, &rkey);
	if (!service)
		return 0; /* not connected through a Service by sock_lb.c */

	struct stale_key skey = { .service = *service, .endpoint = { .port = rkey.port } };
	__builtin_memcpy(skey.endpoint.addr, rkey.addr, sizeof(rkey.addr));
	if (!bpf_map_lookup_elem(&stale, &skey))
		return 0;
	count(0);
#ifdef KPNG_SOCK_DESTROY
	if (bpf_sock_destroy((struct sock_common *)sk) == 0)
		count(1);
	else
		count(2);
#endif
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
