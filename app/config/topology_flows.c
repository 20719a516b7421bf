/* topology_flows.c — the flows: list (topology.h's contract): each flow's fields, its ends and the path between
 * them, its buffer's room and the MPS its path carries, every check located at its node. */
#include "app/config/topology_impl.h"

#include <math.h>
#include <string.h>

#include "app/base/error.h"
#include "app/config/nodes.h"

static const char *const flow_fields[] = { "name", "source", "target", "op", "bytes", "iterations", "start_ns",
                                           "rate_mbps", "bar", "function", NULL };
static const char *const op_words[] = { "write", "read", NULL };

#define PAGE UINT64_C (4096)
/* Host memory for flows' buffers (models/workloads/flow.h): 512 MB up to the 32-bit MMIO window, or 4 GB up to 1 TB. */
#define HOST_ROOM_32 (UINT64_C (0xC0000000) - UINT64_C (0x20000000))
#define HOST_ROOM_64 (UINT64_C (0x10000000000) - UINT64_C (0x100000000))

/* A TLP with more payload than a link's Max_Payload_Size is malformed at that link's receiver (spec §2.2.2), and a
 * switch forwards TLPs as they are: a flow's writes carry the MPS of the source's link, a read's completions the
 * MPS of the completer's link (models/workloads/flow.c, host.c, endpoint.c), so every link between them needs at least that
 * MPS. Refused at the flow, naming the link. */
static gboolean
check_flow_mps (const PsConfig *file, const PsTopology *t, const PsFlow *f, const YNode *e, GError **error)
{
  guint path[PS_TOPOLOGY_MAX_NODES];
  guint n = ps_topology_path (t, f->source, f->target, path);
  if (n == 0)
    return TRUE;
  const PsLink *from = &t->links[path[f->op == PS_FLOW_WRITE ? 0 : n - 1]];
  int64_t tlp = (from->cfg ? from->cfg : file)->link.max_payload;
  for (guint k = 0; k < n; k++) {
    const PsLink *l = &t->links[path[k]];
    int64_t mps = (l->cfg ? l->cfg : file)->link.max_payload;
    if (mps >= tlp)
      continue;
    ytree_error (error, PS_ERROR_DATA, e, "flow %s: its %s carry up to %" G_GINT64_FORMAT " bytes (link.max_payload "
                 "of link %s) but link %s on its path has link.max_payload %" G_GINT64_FORMAT ": a TLP larger than a "
                 "link's Max_Payload_Size is malformed (spec §2.2.2); give the links of a path one max_payload",
                 f->name, f->op == PS_FLOW_WRITE ? "writes" : "read completions", tlp, from->name, l->name, mps);
    return FALSE;
  }
  return TRUE;
}

/* The buffers of the flows that share a memory lie side by side, 4 KB aligned (models/workloads/flow.h): flow fi's
 * and those before it into the same memory must fit it. */
static gboolean
check_flow_room (const PsConfig *file, const PsTopology *t, guint fi, const YNode *bn, GError **error)
{
  const PsFlow *f = &t->flows[fi];
  const PsNode *s = &t->nodes[f->source], *d = &t->nodes[f->target];
  uint64_t need = 0, room;
  const char *where;
  gboolean addr64 = topo_node_cfg (file, s)->link.address_bits == 64;
  for (guint i = 0; i <= fi; i++) {
    const PsFlow *g = &t->flows[i];
    gboolean same = d->type == PS_NODE_ROOT_COMPLEX
                        ? g->target == f->target && (topo_node_cfg (file, &t->nodes[g->source])->link.address_bits == 64)
                                                        == addr64
                        : g->target == f->target && g->bar == f->bar;
    if (same)
      need += ((uint64_t) g->bytes + PAGE - 1) & ~(PAGE - 1);
  }
  if (d->type == PS_NODE_ROOT_COMPLEX) {
    room = addr64 ? HOST_ROOM_64 : HOST_ROOM_32;
    where = addr64 ? "host memory from 4 GB to 1 TB" : "host memory from 512 MB to the MMIO window";
  } else {
    room = d->bar_bytes[f->bar];
    where = "the BAR";
  }
  if (need > room) {
    g_autofree char *bar_name = d->type == PS_NODE_ENDPOINT ? g_strdup_printf (" BAR%u", f->bar) : g_strdup ("");
    ytree_error (error, PS_ERROR_DATA, bn, "flow %s: the flows into %s%s need %" G_GUINT64_FORMAT " bytes (4 KB "
                 "aligned), more than the %" G_GUINT64_FORMAT " of %s", f->name, d->name, bar_name, need, room, where);
    return FALSE;
  }
  return TRUE;
}

/* A read flow's tags: every read flow of a source function holds endpoint.tags of its own, all within its link. */
static gboolean
check_flow_tags (const PsConfig *file, const PsTopology *t, guint fi, const YNode *e, GError **error)
{
  const PsFlow *f = &t->flows[fi];
  const PsNode *s = &t->nodes[f->source];
  if (f->op == PS_FLOW_READ && s->up_link >= 0) {
    /* Each read flow of a source function holds endpoint.tags tags of its own, so its completions are told apart by
     * requester ID and tag (models/workloads/flow.c); together they must fit the tags the source's link carries
     * (link_tags_max(): 14-bit tags in flit mode, 15,360 usable, else 10-bit ones, 768 usable, spec §2.2.6.2), per
     * function: each function of a device is a requester with tags of its own. The flow model refuses the same
     * (models/workloads/flow.c), but without the node's place in the file. */
    const PsLink *up = &t->links[s->up_link];
    int64_t tags = 0;
    int64_t max = (up->cfg ? up->cfg : file)->link.flit_mode || up->gen == 6 ? LINK_TAGS_14BIT : LINK_TAGS_10BIT;
    for (guint i = 0; i <= fi; i++)
      if (t->flows[i].op == PS_FLOW_READ && t->flows[i].source == f->source && t->flows[i].function == f->function)
        tags += topo_node_cfg (file, s)->endpoint.tags;
    if (tags > max) {
      ytree_error (error, PS_ERROR_DATA, ytree_map_get (e, "op"), "flow %s: %s's read flows take %" G_GINT64_FORMAT
                   " tags (endpoint.tags %" G_GINT64_FORMAT " each, every read flow its own), more than the %"
                   G_GINT64_FORMAT " its link %s carries: lower endpoint.tags of %s", f->name, s->name, tags,
                   topo_node_cfg (file, s)->endpoint.tags, max, up->name, s->name);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
topo_parse_flow (const PsConfig *file, PsTopology *t, guint fi, const YNode *e, GError **error)
{
  PsFlow *f = &t->flows[fi];
  if (!topo_want (e, YNODE_MAP, "a flow", error))
    return FALSE;
  for (guint i = 0; i < e->keys->len; i++) {
    const YNode *k = e->keys->pdata[i];
    if (!g_strv_contains (flow_fields, k->value))
      return topo_unknown_key (k, "a flow", flow_fields, error);
  }
  const char *required[] = { "name", "source", "target", "bytes" };
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    if (!ytree_map_get (e, required[i])) {
      ytree_error (error, PS_ERROR_DATA, e, "a flow needs %s (name, source, target and bytes are required)",
                   required[i]);
      return FALSE;
    }
  const YNode *nm = ytree_map_get (e, "name"), *sn = ytree_map_get (e, "source"), *tn = ytree_map_get (e, "target");
  if (!topo_check_name (nm, "a flow's name", error))
    return FALSE;
  for (guint i = 0; i < fi; i++)
    if (strcmp (t->flows[i].name, nm->value) == 0) {
      ytree_error (error, PS_ERROR_DATA, nm, "two flows are named %s", nm->value);
      return FALSE;
    }
  f->name = g_strdup (nm->value);
  int src, dst;
  if (!topo_want (sn, YNODE_SCALAR, "source", error) || !topo_want (tn, YNODE_SCALAR, "target", error))
    return FALSE;
  if ((src = topo_find_node (t, sn->value)) < 0)
    return topo_no_such_node (t, sn, sn->value, error);
  if ((dst = topo_find_node (t, tn->value)) < 0)
    return topo_no_such_node (t, tn, tn->value, error);
  f->source = (guint) src;
  f->target = (guint) dst;
  const PsNode *s = &t->nodes[src], *d = &t->nodes[dst];
  int op = PS_FLOW_WRITE;
  int64_t bar = 0, iterations = 1;
  const YNode *n;
  if ((n = ytree_map_get (e, "op")) && !topo_read_word (n, "op", op_words, &op, error))
    return FALSE;
  f->op = (PsFlowOp) op;
  if ((n = ytree_map_get (e, "bar")) && !topo_read_int (n, "bar", 0, PS_TOPOLOGY_MAX_BARS - 1, &bar, error))
    return FALSE;
  f->bar = (guint) bar;
  const YNode *bn = ytree_map_get (e, "bytes");
  if (!topo_read_int (bn, "bytes", 4, INT64_C (1) << 40, &f->bytes, error))
    return FALSE;
  if (f->bytes % 4) {
    ytree_error (error, PS_ERROR_DATA, bn, "bytes must be whole DWs, a multiple of 4 (got %" G_GINT64_FORMAT ")",
                 f->bytes);
    return FALSE;
  }
  if ((n = ytree_map_get (e, "iterations")) && !topo_read_int (n, "iterations", 1, 1000000, &iterations, error))
    return FALSE;
  f->iterations = iterations;
  if ((n = ytree_map_get (e, "start_ns")) && !topo_read_double (n, "start_ns", 0, 1e12, &f->start_ns, error))
    return FALSE;
  if ((n = ytree_map_get (e, "rate_mbps")) && !topo_read_double (n, "rate_mbps", 0, 1e6, &f->rate_mbps, error))
    return FALSE;
  if (!ps_node_kind (s->kind)->requests) {
    ytree_error (error, PS_ERROR_DATA, sn, "flow %s: its source %s is a %s; a flow's requests come from an "
                 "endpoint", f->name, s->name, ps_node_kind (s->kind)->type);
    return FALSE;
  }
  int64_t fn = 0;
  if ((n = ytree_map_get (e, "function"))) {
    if (!topo_read_int (n, "function", 0, FABRIC_MAX_FUNCTIONS - 1, &fn, error))
      return FALSE;
    if (fn >= s->functions) {
      ytree_error (error, PS_ERROR_DATA, n, "flow %s: %s has no function %" G_GINT64_FORMAT ": it has %u (functions: "
                   "%u, numbered from 0)", f->name, s->name, fn, s->functions, s->functions);
      return FALSE;
    }
  }
  f->function = (uint32_t) fn;
  if (src == dst) {
    ytree_error (error, PS_ERROR_DATA, tn, "flow %s: source and target are both %s", f->name, s->name);
    return FALSE;
  }
  if (d->type == PS_NODE_SWITCH || (d->type == PS_NODE_ENDPOINT && d->bar_bytes[f->bar] == 0)) {
    ytree_error (error, PS_ERROR_DATA, tn, "flow %s: %s has no BAR%u to take a peer-to-peer %s (a flow's target is "
                 "host memory, the root complex, or an endpoint's BAR)", f->name, d->name, f->bar,
                 f->op == PS_FLOW_WRITE ? "write" : "read");
    return FALSE;
  }
  guint ts = topo_top_of (t, (guint) src), td = topo_top_of (t, (guint) dst);
  if (ts != t->root || td != t->root) {
    guint off = ts != t->root ? ts : td;
    ytree_error (error, PS_ERROR_DATA, ts != t->root ? sn : tn, "flow %s: no path from %s to %s: %s hangs below %s, "
                 "which has no link towards the root complex %s", f->name, s->name, d->name,
                 ts != t->root ? s->name : d->name, t->nodes[off].name, t->nodes[t->root].name);
    return FALSE;
  }
  return check_flow_room (file, t, fi, bn, error) && check_flow_tags (file, t, fi, e, error)
         && check_flow_mps (file, t, f, e, error);
}
