/*
 * A stand-in for computenetwork.dll and ole32.dll's CoTaskMemFree, for marshalling tests on Linux.
 * Every HCN function records its arguments as raw bytes (UTF-16 strings with their terminator,
 * 16-byte GUIDs, handle values) and answers from a per-function script: an HRESULT, an output
 * string and an error record, both allocated here and only released through CoTaskMemFree, so a
 * test can prove the binding frees every string HNS hands it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t HRESULT;
typedef uint16_t WCHAR;

#define MAX_CALLS 256
#define MAX_ARGS 6
#define MAX_SCRIPT 64

struct arg { uint8_t *bytes; int len; };
struct call { char name[48]; int argc; struct arg args[MAX_ARGS]; };
struct reply { char name[48]; HRESULT hr; WCHAR *out; WCHAR *err; int used; };

static struct call calls[MAX_CALLS];
static int ncalls;
static struct reply script[MAX_SCRIPT];
static int nscript;
static int live_strings;
static int open_handles;
static uintptr_t next_handle = 0x1000;

static size_t wlen(const WCHAR *s) { size_t n = 0; if (s) while (s[n]) n++; return n; }
static WCHAR *wdup(const WCHAR *s) {
  if (!s) return NULL;
  size_t n = wlen(s) + 1;
  WCHAR *d = malloc(n * sizeof(WCHAR));
  memcpy(d, s, n * sizeof(WCHAR));
  return d;
}

static struct call *record(const char *name) {
  if (ncalls >= MAX_CALLS) abort();
  struct call *c = &calls[ncalls++];
  memset(c, 0, sizeof *c);
  strncpy(c->name, name, sizeof c->name - 1);
  return c;
}
static void arg_bytes(struct call *c, const void *p, int len) {
  struct arg *a = &c->args[c->argc++];
  a->len = p ? len : 0;
  a->bytes = malloc(len > 0 ? len : 1);
  if (p && len > 0) memcpy(a->bytes, p, len);
}
static void arg_wstr(struct call *c, const WCHAR *s) { arg_bytes(c, s, s ? (int)((wlen(s) + 1) * sizeof(WCHAR)) : 0); }
static void arg_guid(struct call *c, const void *g) { arg_bytes(c, g, 16); }
static void arg_handle(struct call *c, void *h) { uintptr_t v = (uintptr_t)h; arg_bytes(c, &v, sizeof v); }
/* Out-parameters are recorded as one byte: 1 when the caller passed a place to write to. */
static void arg_out(struct call *c, void *p) { uint8_t present = p != NULL; arg_bytes(c, &present, 1); }

static HRESULT answer(const char *name, WCHAR **out, WCHAR **err) {
  if (out) *out = NULL;
  if (err) *err = NULL;
  for (int i = 0; i < nscript; i++) {
    struct reply *r = &script[i];
    if (r->used || strcmp(r->name, name) != 0) continue;
    r->used = 1;
    if (out && r->out) { *out = wdup(r->out); live_strings++; }
    if (err && r->err) { *err = wdup(r->err); live_strings++; }
    return r->hr;
  }
  return 0;
}
static void *new_handle(void) { open_handles++; return (void *)(next_handle++); }

/* ---- the test's side ---- */
void stub_reset(void) {
  for (int i = 0; i < ncalls; i++) for (int j = 0; j < calls[i].argc; j++) free(calls[i].args[j].bytes);
  for (int i = 0; i < nscript; i++) { free(script[i].out); free(script[i].err); }
  ncalls = nscript = live_strings = open_handles = 0;
  next_handle = 0x1000;
}
int stub_script(const char *name, HRESULT hr, const WCHAR *out, const WCHAR *err) {
  if (nscript >= MAX_SCRIPT) return -1;
  struct reply *r = &script[nscript++];
  memset(r, 0, sizeof *r);
  strncpy(r->name, name, sizeof r->name - 1);
  r->hr = hr; r->out = wdup(out); r->err = wdup(err);
  return nscript;
}
int stub_calls(void) { return ncalls; }
const char *stub_call_name(int i) { return i < ncalls ? calls[i].name : ""; }
int stub_call_argc(int i) { return i < ncalls ? calls[i].argc : -1; }
int stub_call_arg(int i, int j, uint8_t *buf, int cap) {
  if (i >= ncalls || j >= calls[i].argc) return -1;
  struct arg *a = &calls[i].args[j];
  memcpy(buf, a->bytes, a->len < cap ? a->len : cap);
  return a->len;
}
int stub_live_strings(void) { return live_strings; }
int stub_open_handles(void) { return open_handles; }

/* ---- ole32 ---- */
void CoTaskMemFree(void *p) {
  struct call *c = record("CoTaskMemFree");
  arg_wstr(c, p);
  if (p) { live_strings--; free(p); }
}

/* ---- computenetwork ---- */
#define ENUMERATE(fn) \
  HRESULT fn(const WCHAR *query, WCHAR **ids, WCHAR **err) { \
    struct call *c = record(#fn); arg_wstr(c, query); arg_out(c, ids); arg_out(c, err); \
    return answer(#fn, ids, err); }
#define OPEN(fn) \
  HRESULT fn(const void *id, void **handle, WCHAR **err) { \
    struct call *c = record(#fn); arg_guid(c, id); arg_out(c, handle); arg_out(c, err); \
    HRESULT hr = answer(#fn, NULL, err); *handle = hr < 0 ? NULL : new_handle(); return hr; }
#define QUERY(fn) \
  HRESULT fn(void *handle, const WCHAR *query, WCHAR **props, WCHAR **err) { \
    struct call *c = record(#fn); arg_handle(c, handle); arg_wstr(c, query); arg_out(c, props); arg_out(c, err); \
    return answer(#fn, props, err); }
#define CLOSE(fn) \
  HRESULT fn(void *handle) { struct call *c = record(#fn); arg_handle(c, handle); if (handle) open_handles--; return answer(#fn, NULL, NULL); }
#define DELETE(fn) \
  HRESULT fn(const void *id, WCHAR **err) { struct call *c = record(#fn); arg_guid(c, id); arg_out(c, err); return answer(#fn, NULL, err); }

ENUMERATE(HcnEnumerateNetworks)
OPEN(HcnOpenNetwork)
QUERY(HcnQueryNetworkProperties)
CLOSE(HcnCloseNetwork)
ENUMERATE(HcnEnumerateEndpoints)
OPEN(HcnOpenEndpoint)
QUERY(HcnQueryEndpointProperties)
DELETE(HcnDeleteEndpoint)
CLOSE(HcnCloseEndpoint)
ENUMERATE(HcnEnumerateLoadBalancers)
OPEN(HcnOpenLoadBalancer)
QUERY(HcnQueryLoadBalancerProperties)
DELETE(HcnDeleteLoadBalancer)
CLOSE(HcnCloseLoadBalancer)

HRESULT HcnCreateEndpoint(void *network, const void *id, const WCHAR *settings, void **endpoint, WCHAR **err) {
  struct call *c = record("HcnCreateEndpoint");
  arg_handle(c, network); arg_guid(c, id); arg_wstr(c, settings); arg_out(c, endpoint); arg_out(c, err);
  HRESULT hr = answer("HcnCreateEndpoint", NULL, err);
  *endpoint = hr < 0 ? NULL : new_handle();
  return hr;
}

HRESULT HcnCreateLoadBalancer(const void *id, const WCHAR *settings, void **lb, WCHAR **err) {
  struct call *c = record("HcnCreateLoadBalancer");
  arg_guid(c, id); arg_wstr(c, settings); arg_out(c, lb); arg_out(c, err);
  HRESULT hr = answer("HcnCreateLoadBalancer", NULL, err);
  *lb = hr < 0 ? NULL : new_handle();
  return hr;
}
