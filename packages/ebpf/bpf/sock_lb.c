// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * kpng socket-level Service load balancing: cgroup v2 sock_addr programs.
 *
 * A socket created by a process in the attached cgroup that connects (TCP, connected UDP) or sends
 * (unconnected UDP) to a Service address has its destination rewritten to one endpoint before any
 * packet exists: no NAT, no conntrack entry, one map lookup per connection. What userspace
 * (src/maps/layout.ts: the same layouts, byte for byte) keeps in the maps is core's decision:
 * the endpoint list of each Service address after traffic policy, topology and terminating
 * fallback. This program only picks one of them.
 *
 *   services4/6   (address, port, protocol)       -> lb: id, endpoint count, affinity, flags
 *   endpoints     (lb id, index 0..count-1)       -> endpoint address and port
 *   affinity      (client netns cookie, lb id)    -> chosen index and endpoint, last use (LRU)
 *   revnat        (socket cookie, endpoint)       -> the Service address the socket asked for (LRU)
 *
 * getpeername4/6 and recvmsg4/6 use revnat so the application keeps seeing the Service address
 * (TCP peer name, UDP reply source). Addresses and ports are in network byte order throughout;
 * an IPv4 address sits in addr[0] of the 16-byte address fields.
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include "revnat.h"

#define AF_INET 2
#define AF_INET6 10
#define ECONNREFUSED 111
#define EHOSTUNREACH 113

/* A cgroup sock_addr program allows the call with 1 and refuses it with 0. */
#define SYS_PROCEED 1
#define SYS_REJECT 0

/* lb flags. No endpoint anywhere: refuse the connection, as the other backends' reject does. */
#define LB_REJECT 1
/* Endpoints exist but none this node may use (a Local traffic policy without a local endpoint): */
/* the other backends drop the packets; a socket call cannot be dropped, so it fails at once. */
#define LB_UNREACHABLE 2

struct svc_key4 {
	__be32 addr;
	__be16 port;
	__u8 proto;
	__u8 pad;
};

struct svc_key6 {
	__be32 addr[4];
	__be16 port;
	__u8 proto;
	__u8 pad;
};

struct lb {
	__u32 id;
	__u32 count;
	__u32 affinity_seconds; /* 0: no session affinity */
	__u32 flags;
};

struct ep_key {
	__u32 id;
	__u32 index;
};


struct aff_key {
	__u64 netns_cookie;
	__u32 id;
	__u32 pad;
};

struct aff_val {
	__u64 last_used_ns;
	__u32 index;
	__u32 pad;
	struct ep ep;
};


/* Sizes are userspace's to set before loading (bpf_map__set_max_entries); these are defaults. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct svc_key4);
	__type(value, struct lb);
} services4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct svc_key6);
	__type(value, struct lb);
} services6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 262144);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ep_key);
	__type(value, struct ep);
} endpoints SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct aff_key);
	__type(value, struct aff_val);
} affinity SEC(".maps");


static __always_inline int same_ep(const struct ep *a, const struct ep *b)
{
	return a->port == b->port && a->addr[0] == b->addr[0] && a->addr[1] == b->addr[1] &&
	       a->addr[2] == b->addr[2] && a->addr[3] == b->addr[3];
}

/*
 * Picks the endpoint for one connection (or datagram) to `lb`: the client's affinity entry while
 * it is fresh and its endpoint is still at that index, else a random one. Fails with the errno the
 * socket call returns.
 */
static __always_inline int pick(struct bpf_sock_addr *ctx, const struct lb *lb, struct ep *out)
{
	if (lb->flags & LB_REJECT)
		return -ECONNREFUSED;
	if (lb->count == 0 || (lb->flags & LB_UNREACHABLE))
		return -EHOSTUNREACH;

	struct aff_key akey = {};
	__u64 now = 0;
	if (lb->affinity_seconds) {
		akey.netns_cookie = bpf_get_netns_cookie(ctx);
		akey.id = lb->id;
		now = bpf_ktime_get_ns();
		struct aff_val *held = bpf_map_lookup_elem(&affinity, &akey);
		if (held && now - held->last_used_ns <= (__u64)lb->affinity_seconds * 1000000000ULL &&
		    held->index < lb->count) {
			struct ep_key key = { .id = lb->id, .index = held->index };
			struct ep *cur = bpf_map_lookup_elem(&endpoints, &key);
			if (cur && same_ep(cur, &held->ep)) {
				held->last_used_ns = now;
				*out = *cur;
				return 0;
			}
		}
	}

	struct ep_key key = { .id = lb->id, .index = bpf_get_prandom_u32() % lb->count };
	struct ep *chosen = bpf_map_lookup_elem(&endpoints, &key);
	if (!chosen)
		return -EHOSTUNREACH; /* userspace writes endpoints before it raises a count */
	*out = *chosen;
	if (lb->affinity_seconds) {
		struct aff_val val = { .last_used_ns = now, .index = key.index, .ep = *chosen };
		bpf_map_update_elem(&affinity, &akey, &val, BPF_ANY);
	}
	return 0;
}

/* Remembers the Service address the socket asked for, under the endpoint it now talks to. */
static __always_inline void remember(struct bpf_sock_addr *ctx, const struct ep *to, const struct ep *service)
{
	struct revnat_key key = { .socket_cookie = bpf_get_socket_cookie(ctx), .port = to->port };
	__builtin_memcpy(key.addr, to->addr, sizeof(key.addr));
	bpf_map_update_elem(&revnat, &key, service, BPF_ANY);
}

static __always_inline int refuse(int err)
{
	bpf_set_retval(err);
	return SYS_REJECT;
}

static __always_inline int xlate4(struct bpf_sock_addr *ctx)
{
	struct svc_key4 key = { .addr = ctx->user_ip4, .port = (__be16)ctx->user_port, .proto = ctx->protocol };
	struct lb *lb = bpf_map_lookup_elem(&services4, &key);
	if (!lb)
		return SYS_PROCEED; /* not a Service address: untouched */
	struct ep to;
	int err = pick(ctx, lb, &to);
	if (err)
		return refuse(err);
	struct ep service = { .addr = { key.addr }, .port = key.port };
	remember(ctx, &to, &service);
	ctx->user_ip4 = to.addr[0];
	ctx->user_port = to.port;
	return SYS_PROCEED;
}

static __always_inline int xlate6(struct bpf_sock_addr *ctx)
{
	struct svc_key6 key = { .port = (__be16)ctx->user_port, .proto = ctx->protocol };
	key.addr[0] = ctx->user_ip6[0];
	key.addr[1] = ctx->user_ip6[1];
	key.addr[2] = ctx->user_ip6[2];
	key.addr[3] = ctx->user_ip6[3];
	struct lb *lb = bpf_map_lookup_elem(&services6, &key);
	if (!lb)
		return SYS_PROCEED;
	struct ep to;
	int err = pick(ctx, lb, &to);
	if (err)
		return refuse(err);
	struct ep service = { .port = key.port };
	__builtin_memcpy(service.addr, key.addr, sizeof(service.addr));
	remember(ctx, &to, &service);
	ctx->user_ip6[0] = to.addr[0];
	ctx->user_ip6[1] = to.addr[1];
	ctx->user_ip6[2] = to.addr[2];
	ctx->user_ip6[3] = to.addr[3];
	ctx->user_port = to.port;
	return SYS_PROCEED;
}

/* The peer (TCP getpeername) or the source (UDP recvmsg) back to the Service address. */
static __always_inline void restore4(struct bpf_sock_addr *ctx)
{
	struct revnat_key key = { .socket_cookie = bpf_get_socket_cookie(ctx), .port = (__be16)ctx->user_port };
	key.addr[0] = ctx->user_ip4;
	struct ep *service = bpf_map_lookup_elem(&revnat, &key);
	if (!service)
		return;
	ctx->user_ip4 = service->addr[0];
	ctx->user_port = service->port;
}

static __always_inline void restore6(struct bpf_sock_addr *ctx)
{
	struct revnat_key key = { .socket_cookie = bpf_get_socket_cookie(ctx), .port = (__be16)ctx->user_port };
	key.addr[0] = ctx->user_ip6[0];
	key.addr[1] = ctx->user_ip6[1];
	key.addr[2] = ctx->user_ip6[2];
	key.addr[3] = ctx->user_ip6[3];
	struct ep *service = bpf_map_lookup_elem(&revnat, &key);
	if (!service)
		return;
	ctx->user_ip6[0] = service->addr[0];
	ctx->user_ip6[1] = service->addr[1];
	ctx->user_ip6[2] = service->addr[2];
	ctx->user_ip6[3] = service->addr[3];
	ctx->user_port = service->port;
}

SEC("cgroup/connect4")
int kpng_connect4(struct bpf_sock_addr *ctx)
{
	return xlate4(ctx);
}

SEC("cgroup/connect6")
int kpng_connect6(struct bpf_sock_addr *ctx)
{
	return xlate6(ctx);
}

SEC("cgroup/sendmsg4")
int kpng_sendmsg4(struct bpf_sock_addr *ctx)
{
	return xlate4(ctx);
}

SEC("cgroup/sendmsg6")
int kpng_sendmsg6(struct bpf_sock_addr *ctx)
{
	return xlate6(ctx);
}

SEC("cgroup/recvmsg4")
int kpng_recvmsg4(struct bpf_sock_addr *ctx)
{
	restore4(ctx);
	return SYS_PROCEED;
}

SEC("cgroup/recvmsg6")
int kpng_recvmsg6(struct bpf_sock_addr *ctx)
{
	restore6(ctx);
	return SYS_PROCEED;
}

SEC("cgroup/getpeername4")
int kpng_getpeername4(struct bpf_sock_addr *ctx)
{
	restore4(ctx);
	return SYS_PROCEED;
}

SEC("cgroup/getpeername6")
int kpng_getpeername6(struct bpf_sock_addr *ctx)
{
	restore6(ctx);
	return SYS_PROCEED;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
