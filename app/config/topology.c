/* topology.c — topology: and flows: -> PsTopology, every check located (contract in topology.h).
 *
 * The order of the checks is the order a reader fixes things in: each node on its own (its fields, its config),
 * then each link (its ends, their ports, its width), then the graph (a node no link names, a cycle), then the
 * flows (their ends and a path between them), and last whatever the flows did not already name: a part of the
 * graph with no way up to the root complex. The small readers every part
 * uses are topology_read.c's, the paths through the tree topology_graph.c's, the flows topology_flows.c's, the
 * `pciesim keys` rows topology_fields.c's. */
#include "app/config/topology.h"

#include <math.h>
#include <string.h>

#include "app/base/error.h"
#include "app/config/nodes.h"
#include "app/config/topology_impl.h"

/* The fields of a node and of a link entry; anything else in a node is a config section (ps_config_derive()), in a
 * link a link.* key of its own. */
static const char *const node_fields[] = { "type", "ports", "bars", "weights", "functions", "include", "assumptions",
                                           NULL };
/* The config sections a node may set for itself, in the order a misspelt key's suggestion and a section-less key's
 * hint try them. */
static const char *const node_sections[] = { "link", "endpoint", "host", "dma", "switch", "benchmark", NULL };
static const char *const link_fields[] = { "a", "b", "name", "a_rx_credits", "b_rx_credits", NULL };
static const char *const credit_words[] = { "ph", "pd", "nph", "npd", "cplh", "cpld", NULL };

/* An endpoint without bars: one 16 MB BAR0, room for the flows of the shipped configs (and 64 such endpoints
 * fit the 32-bit MMIO window). */
#define DEFAULT_BAR_BYTES (UINT64_C (16) << 20)

gboolean
ps_config_runs_flows (const PsConfig *cfg)
{
  return cfg->topology != NULL && cfg->topology->n_flows > 0;
}

guint
ps_topology_endpoint (const PsTopology *t)
{
  guint i = 0;
  while (i < t->n_nodes && t->nodes[i].type != PS_NODE_ENDPOINT)
    i++;
  return i;
}

const char *
ps_node_type_name (PsNodeType type)
{
  return ps_node_kind (type)->type;
}

/* "a, b or c": the registry's type words for a message. */
static char *
type_list (void)
{
  const char *const *w = ps_node_kind_words ();
  GString *s = g_string_new (NULL);
  for (guint i = 0; w[i]; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : w[i + 1] ? ", " : " or ", w[i]);
  return g_string_free (s, FALSE);
}

/* --- nodes --------------------------------------------------------------------------------------------------- */

static gboolean
parse_bars (PsNode *node, const YNode *v, GError **error)
{
  if (!topo_want (v, YNODE_SEQ, "bars", error))
    return FALSE;
  if (v->items->len > PS_TOPOLOGY_MAX_BARS) {
    ytree_error (error, PS_ERROR_DATA, v, "bars lists %u BARs: a function has at most %u", v->items->len,
                 PS_TOPOLOGY_MAX_BARS);
    return FALSE;
  }
  for (guint i = 0; i < v->items->len; i++) {
    const YNode *b = v->items->pdata[i], *bytes = b;
    int64_t size, bits = 32;
    if (b->kind == YNODE_MAP) {
      for (guint k = 0; k < b->keys->len; k++) {
        const YNode *key = b->keys->pdata[k];
        if (strcmp (key->value, "bytes") && strcmp (key->value, "bits"))
          return topo_unknown_key (key, "a BAR", (const char *const[]) { "bytes", "bits", NULL }, error);
      }
      bytes = ytree_map_get (b, "bytes");
      const YNode *bn = ytree_map_get (b, "bits");
      if (!bytes) {
        ytree_error (error, PS_ERROR_DATA, b, "a BAR needs bytes");
        return FALSE;
      }
      if (bn && (bn->kind != YNODE_SCALAR || (strcmp (bn->value, "32") && strcmp (bn->value, "64")))) {
        ytree_error (error, PS_ERROR_DATA, bn, "bits must be 32 or 64");
        return FALSE;
      }
      bits = bn && strcmp (bn->value, "64") == 0 ? 64 : 32;
    }
    /* A memory BAR is a power of two of at least 128 bytes (spec §7.5.1.2.1); 0 leaves it unimplemented. */
    if (!topo_read_int (bytes, "a BAR's size in bytes", 0, INT64_C (1) << 40, &size, error))
      return FALSE;
    if (size != 0 && (size < 128 || (size & (size - 1)))) {
      ytree_error (error, PS_ERROR_DATA, bytes, "a BAR is a power of two of at least 128 bytes, or 0 for none (got %"
                   G_GINT64_FORMAT ")", size);
      return FALSE;
    }
    node->bar_bytes[i] = (uint64_t) size;
    node->bar64[i] = bits == 64;
  }
  return TRUE;
}

/* One key of a node's mapping: a field of its kind, a node field (include and assumptions go to the node's
 * overlay with its sections' keys), or a section; anything else is refused with where it belongs. */
static gboolean
node_key (PsNode *node, const PsNodeKind *kind, YNode *overlay, const YNode *k, const YNode *val, GError **error)
{
  guint f = 0;
  while (f < kind->n_fields && strcmp (kind->fields[f].name, k->value) != 0)
    f++;
  if (f < kind->n_fields) {
    if (!topo_read_double (val, k->value, kind->fields[f].min, kind->fields[f].max, &node->field[f], error))
      return FALSE;
    /* A count or a size in whole units (a block of sectors): the step is the unit. */
    double step = kind->fields[f].step;
    if (step > 0 && fmod (node->field[f], step) != 0) {
      ytree_error (error, PS_ERROR_DATA, val, "%s must be a multiple of %g (got %s)", k->value, step, val->value);
      return FALSE;
    }
    node->fields_given |= 1u << f;
    return TRUE;
  }
  if (g_strv_contains (node_fields, k->value)) {
    /* A node that is no switch reads no switch key: a range of one would vary nothing (issue #37). */
    if (strcmp (k->value, "assumptions") == 0 && node->type != PS_NODE_SWITCH && val->kind == YNODE_MAP)
      for (guint r = 0; r < val->keys->len; r++) {
        const YNode *rk = val->keys->pdata[r];
        if (g_str_has_prefix (rk->value, "switch.")) {
          ytree_error (error, PS_ERROR_DATA, rk, "assumptions: %s is a switch's key, and %s is %s %s: nothing it "
                       "runs reads it", rk->value, node->name, strchr ("aeiou", kind->type[0]) ? "an" : "a",
                       kind->type);
          return FALSE;
        }
      }
    /* The node's own ranges go with its keys (ps_config_derive() keeps them, load.c lists them). */
    if (strcmp (k->value, "include") == 0 || strcmp (k->value, "assumptions") == 0)
      ytree_map_set (overlay, k->value, ytree_copy (val), k);
    return TRUE;
  }
  if (strcmp (k->value, "switch") == 0 && node->type != PS_NODE_SWITCH) {
    ytree_error (error, PS_ERROR_DATA, k, "switch: only a switch node has switch keys (%s is %s %s): they would "
                 "be read by nothing", node->name, strchr ("aeiou", kind->type[0]) ? "an" : "a", kind->type);
    return FALSE;
  }
  if (!ps_config_is_section (k->value) || strcmp (k->value, "published") == 0) {
    /* A key of a section written without it (`lanes: 4` for `link: {lanes: 4}`): say where it belongs. */
    for (const char *const *sec = node_sections; *sec; sec++) {
      g_autofree char *path = g_strconcat (*sec, ".", k->value, NULL);
      if (ps_config_key_exists (path)) {
        ytree_error (error, PS_ERROR_DATA, k, "unknown key '%s' in a node (did you mean '%s: {%s: …}'?)",
                     k->value, *sec, k->value);
        return FALSE;
      }
    }
    /* The choices a misspelt key is compared with: the node's fields, then its sections. */
    const char *choices[G_N_ELEMENTS (node_fields) + G_N_ELEMENTS (node_sections) - 1];
    guint nc = 0;
    for (const char *const *c = node_fields; *c; c++)
      choices[nc++] = *c;
    for (const char *const *c = node_sections; *c; c++)
      choices[nc++] = *c;
    choices[nc] = NULL;
    return topo_unknown_key (k, "a node", choices, error);
  }
  ytree_map_set (overlay, k->value, ytree_copy (val), k);
  return TRUE;
}

/* What a node's mapping says of its shape beyond its keys: ports, BARs, functions and a switch's weights, each
 * only on the kinds that have them. */
static gboolean
node_shape (PsNode *node, const PsNodeKind *kind, const YNode *v, GError **error)
{
  const YNode *n;
  if ((n = ytree_map_get (v, "ports"))) {
    int64_t ports;
    if (node->type == PS_NODE_ENDPOINT) {
      ytree_error (error, PS_ERROR_DATA, n, "ports: an endpoint has one port, towards the root complex");
      return FALSE;
    }
    if (!topo_read_int (n, "ports", node->type == PS_NODE_SWITCH ? 2 : 1, 64, &ports, error))
      return FALSE;
    node->ports = (uint32_t) ports;
  }
  if ((n = ytree_map_get (v, "bars"))) {
    if (node->type != PS_NODE_ENDPOINT) {
      ytree_error (error, PS_ERROR_DATA, n, "bars: only an endpoint has BARs (%s is a %s)", node->name,
                   ps_node_type_name (node->type));
      return FALSE;
    }
    memset (node->bar_bytes, 0, sizeof node->bar_bytes);
    if (!parse_bars (node, n, error))
      return FALSE;
  }
  if ((n = ytree_map_get (v, "functions"))) {
    /* A multi-function device (spec §7.5): function numbers are 3 bits of the requester ID (§2.2.6.2). Its flows
     * name the function they come from; the memory device answers reads and makes none. */
    int64_t fns;
    if (!kind->functions) {
      ytree_error (error, PS_ERROR_DATA, n, "functions: only an endpoint has requester functions (%s is a %s)",
                   node->name, kind->type);
      return FALSE;
    }
    if (!topo_read_int (n, "functions", 1, FABRIC_MAX_FUNCTIONS, &fns, error))
      return FALSE;
    node->functions = (uint32_t) fns;
  }
  if ((n = ytree_map_get (v, "weights"))) {
    if (node->type != PS_NODE_SWITCH) {
      ytree_error (error, PS_ERROR_DATA, n, "weights: only a switch arbitrates among ports");
      return FALSE;
    }
    if (!topo_want (n, YNODE_SEQ, "weights", error))
      return FALSE;
    node->weights = g_new0 (uint32_t, 64);
    for (guint i = 0; i < n->items->len && i < 64; i++) {
      int64_t w;
      if (!topo_read_int (n->items->pdata[i], "a port's weight", 1, 255, &w, error))
        return FALSE;
      node->weights[i] = (uint32_t) w;
    }
  }
  return TRUE;
}

static gboolean
parse_node (const PsConfig *file, PsTopology *t, PsNode *node, const YNode *key, const YNode *v, GError **error)
{
  if (!topo_check_name (key, "a node's name", error) || !topo_want (v, YNODE_MAP, "a node", error))
    return FALSE;
  node->name = g_strdup (key->value);
  node->up_link = -1;
  const YNode *type = ytree_map_get (v, "type");
  int ty;
  if (!type) {
    g_autofree char *types = type_list ();
    ytree_error (error, PS_ERROR_DATA, v, "node %s needs a type: %s", node->name, types);
    return FALSE;
  }
  if (!topo_read_word (type, "type", ps_node_kind_words (), &ty, error))
    return FALSE;
  node->kind = (guint) ty;
  const PsNodeKind *kind = ps_node_kind (node->kind);
  node->type = kind->role;
  for (guint i = 0; i < kind->n_fields; i++)
    node->field[i] = kind->fields[i].dflt;
  node->bar_bytes[0] = node->type == PS_NODE_ENDPOINT ? DEFAULT_BAR_BYTES : 0;
  node->functions = 1;
  g_autoptr (YNode) overlay = ytree_map_new (v->origin, v->line, v->col);
  for (guint i = 0; i < v->keys->len; i++)
    if (!node_key (node, kind, overlay, v->keys->pdata[i], v->items->pdata[i], error))
      return FALSE;
  if (!node_shape (node, kind, v, error))
    return FALSE;
  /* A node that adds nothing to the file's keys uses the file's config as it is. */
  if (overlay->keys->len > 0) {
    node->cfg = ps_config_derive (file, overlay, error);
    if (!node->cfg)
      return FALSE;
  }
  return TRUE;
}

/* --- links --------------------------------------------------------------------------------------------------- */

/* "NODE" or "NODE.PORT": the node's index, and the port or -1. */
static gboolean
parse_end (const PsTopology *t, const YNode *n, int *node, int64_t *port, GError **error)
{
  if (!topo_want (n, YNODE_SCALAR, "a link's end", error))
    return FALSE;
  g_autofree char *name = g_strdup (n->value);
  char *dot = strrchr (name, '.');
  *port = -1;
  if (dot) {
    *dot = '\0';
    gint64 p;
    if (!g_ascii_string_to_signed (dot + 1, 10, 0, 63, &p, NULL)) {
      ytree_error (error, PS_ERROR_DATA, n, "a link's end is NODE or NODE.PORT, PORT 0..63 (got '%s')", n->value);
      return FALSE;
    }
    *port = p;
  }
  *node = topo_find_node (t, name);
  return *node >= 0 || topo_no_such_node (t, n, name, error);
}

static gboolean
parse_credits (const YNode *v, PsCredits *c, GError **error)
{
  if (!topo_want (v, YNODE_MAP, "rx_credits", error))
    return FALSE;
  int64_t *field[] = { &c->ph, &c->pd, &c->nph, &c->npd, &c->cplh, &c->cpld };
  for (guint i = 0; i < v->keys->len; i++) {
    const YNode *k = v->keys->pdata[i];
    int w = -1;
    for (int j = 0; credit_words[j]; j++)
      if (strcmp (credit_words[j], k->value) == 0)
        w = j;
    if (w < 0)
      return topo_unknown_key (k, "rx_credits", credit_words, error);
    /* The ranges of the config's credit keys (config_keys.c): scaled flow control's largest advertisements. */
    if (!topo_read_int (v->items->pdata[i], k->value, 0, w % 2 ? 32752 : 2032, field[w], error))
      return FALSE;
  }
  return TRUE;
}

/* What a node's receivers advertise unless a link says otherwise: its config's credits for its kind (as the
 * builder takes them). */
static const PsCredits *
node_credits (const PsConfig *file, const PsNode *n)
{
  const PsConfig *c = topo_node_cfg (file, n);
  return n->type == PS_NODE_ROOT_COMPLEX ? &c->host.rx_credits
         : n->type == PS_NODE_SWITCH     ? &c->sw.rx_credits
                                         : &c->endpoint.rx_credits;
}

/* Spec §3.4.2's minimum advertisements (config_rules.c checks the file's keys against the file's MPS; here each link
 * end against the MPS the link runs at, which a node's or the link's own keys may raise): finite data credits
 * must hold one max-payload posted TLP and one max-size completion (the largest read request any node of the
 * fabric may make, capped by the link's MPS), or the sender waits forever. A switch port holds what it receives
 * in a buffer until an egress port takes it, so its header advertisements are finite (pcie-protocol.md §5: only
 * endpoints and root complexes advertise infinite credits, and those for completions). */
static gboolean
check_link_credits (const PsConfig *file, const PsTopology *t, const PsLink *l, const YNode *e, GError **error)
{
  const PsConfig *lc = l->cfg ? l->cfg : file;
  int64_t mps = lc->link.max_payload, mrrs = MAX (lc->link.max_read_request, file->link.max_read_request);
  for (guint i = 0; i < t->n_nodes; i++)
    mrrs = MAX (mrrs, topo_node_cfg (file, &t->nodes[i])->link.max_read_request);
  for (int end = 0; end < 2; end++) {
    const PsNode *n = &t->nodes[end ? l->b : l->a];
    const PsCredits *c = l->has_credits[end] ? &l->credits[end] : node_credits (file, n);
    gboolean sw = n->type == PS_NODE_SWITCH;
    const struct {
      const char *type;
      int64_t value, min;
    } rule[] = { { "pd", c->pd, mps / 16 }, { "cpld", c->cpld, MIN (mps, mrrs) / 16 },
                 { "ph", c->ph, sw }, { "nph", c->nph, sw }, { "cplh", c->cplh, sw } };
    for (size_t r = 0; r < G_N_ELEMENTS (rule); r++) {
      gboolean data = r < 2;
      if (data ? rule[r].value == 0 || rule[r].value >= rule[r].min : !rule[r].min || rule[r].value > 0)
        continue;
      const char *side = end ? "b_rx_credits" : "a_rx_credits";
      const YNode *given = e->kind == YNODE_MAP ? ytree_map_get (e, side) : NULL;
      const YNode *at = given && given->kind == YNODE_MAP && ytree_map_get (given, rule[r].type)
                          ? ytree_map_get (given, rule[r].type) : given ? given : e;
      g_autofree char *what = l->has_credits[end]
                                ? g_strdup_printf ("%s.%s", side, rule[r].type)
                                : g_strdup_printf ("%s.rx_credits.%s of %s", n->type == PS_NODE_ROOT_COMPLEX ? "host"
                                                   : sw ? "switch" : "endpoint", rule[r].type, n->name);
      if (data)
        ytree_error (error, PS_ERROR_DATA, at, "link %s: %s (%" G_GINT64_FORMAT ") is below the spec minimum of %"
                     G_GINT64_FORMAT " credits (%s, %" G_GINT64_FORMAT ", / 16 bytes, spec §3.4.2): no %s TLP could "
                     "ever cross to %s; 0 means infinite", l->name, what, rule[r].value, rule[r].min,
                     r == 0 ? "the link's Max_Payload_Size"
                            : "the smaller of the link's Max_Payload_Size and the fabric's largest Max_Read_Request_Size",
                     r == 0 ? mps : MIN (mps, mrrs), r == 0 ? "max-payload posted" : "max-size completion", n->name);
      else
        ytree_error (error, PS_ERROR_DATA, at, "link %s: %s is 0, infinite: %s is a switch, whose port buffers are "
                     "finite, so it advertises finite header credits (pcie-protocol.md §5)", l->name, what, n->name);
      return FALSE;
    }
  }
  return TRUE;
}

/* Outside scaled flow control a receiver may have at most 127 header and 2047 data credits outstanding (spec §2.6.1;
 * config_rules.c holds a config's keys to it). Scaled flow control is a Data Link Feature both ports must support,
 * so each link on its own: the link model's condition, its trained rate or link.supported_gen 16 GT/s or more, or
 * flit mode. A node whose own rate would allow more may still face a link that trains lower. */
static gboolean
check_link_unscaled (const PsConfig *file, const PsTopology *t, const PsLink *l, const YNode *e, GError **error)
{
  const PsConfig *lc = l->cfg ? l->cfg : file;
  if (MAX (l->gen, lc->link.supported_gen) >= 4 || lc->link.flit_mode || l->gen == 6)
    return TRUE;
  for (int end = 0; end < 2; end++) {
    const PsNode *n = &t->nodes[end ? l->b : l->a];
    const PsCredits *c = l->has_credits[end] ? &l->credits[end] : node_credits (file, n);
    const int64_t value[] = { c->ph, c->pd, c->nph, c->npd, c->cplh, c->cpld };
    for (int r = 0; credit_words[r]; r++) {
      int64_t max = r % 2 ? 2047 : 127;
      if (value[r] <= max)
        continue;
      const char *side = end ? "b_rx_credits" : "a_rx_credits";
      const YNode *given = e->kind == YNODE_MAP ? ytree_map_get (e, side) : NULL;
      const YNode *at = given && given->kind == YNODE_MAP && ytree_map_get (given, credit_words[r])
                          ? ytree_map_get (given, credit_words[r]) : e;
      g_autofree char *what = l->has_credits[end] && given && ytree_map_get (given, credit_words[r])
                                ? g_strdup_printf ("%s.%s", side, credit_words[r])
                                : g_strdup_printf ("%s.rx_credits.%s of %s", n->type == PS_NODE_ROOT_COMPLEX ? "host"
                                                   : n->type == PS_NODE_SWITCH ? "switch" : "endpoint",
                                                   credit_words[r], n->name);
      ytree_error (error, PS_ERROR_DATA, at, "link %s: %s (%" G_GINT64_FORMAT ") is above the %" G_GINT64_FORMAT
                   " credits a receiver may have outstanding without scaled flow control (spec §2.6.1): the link "
                   "trains at Gen%" G_GINT64_FORMAT ", and scaled flow control needs both its ports to support 16 GT/s "
                   "(the link's link.gen or link.supported_gen 4+) or flit mode", l->name, what, value[r], max, l->gen);
      return FALSE;
    }
  }
  return TRUE;
}

/* The node at a link's end, the port it takes (given, or the next free one) and its direction. `a` faces
 * downstream: a root port or a switch's downstream port; `b` faces the root: an endpoint or a switch's port 0. */
static gboolean
take_port (PsTopology *t, guint li, const YNode *at, int node, int64_t port, gboolean is_a, uint32_t *used,
  GError **error)
{
  PsNode *nd = &t->nodes[node];
  PsLink *l = &t->links[li];
  if (is_a && nd->type == PS_NODE_ENDPOINT) {
    ytree_error (error, PS_ERROR_DATA, at, "%s is an endpoint: it has no downstream port (a link names the end "
                 "nearer the root complex first)", nd->name);
    return FALSE;
  }
  if (!is_a && nd->type == PS_NODE_ROOT_COMPLEX) {
    ytree_error (error, PS_ERROR_DATA, at, "%s is the root complex, the top of the tree: it is always a link's "
                 "first end", nd->name);
    return FALSE;
  }
  if (!is_a) {
    if (port > 0) {
      ytree_error (error, PS_ERROR_DATA, at, "%s.%" G_GINT64_FORMAT " faces away from the root: a link's second end "
                   "is %s's port 0, the one towards the root complex", nd->name, port, nd->name);
      return FALSE;
    }
    if (nd->up_link >= 0) {
      ytree_error (error, PS_ERROR_DATA, at, "port used twice: %s's port 0 is already linked (%s): a node has one "
                   "link towards the root complex", nd->name, t->links[nd->up_link].name);
      return FALSE;
    }
    nd->up_link = (int) li;
    l->b_port = 0;
    return TRUE;
  }
  uint32_t first = nd->type == PS_NODE_SWITCH ? 1 : 0;
  if (port < 0) {
    port = first;
    while (port < 64 && (used[node * 64 + port] & 1))
      port++;
  } else if (port < first) {
    ytree_error (error, PS_ERROR_DATA, at, "%s.0 is %s's upstream port, towards the root: a link's first end is a "
                 "downstream port (1 or more)", nd->name, nd->name);
    return FALSE;
  }
  if (nd->ports && port >= nd->ports) {
    ytree_error (error, PS_ERROR_DATA, at, "%s has %u ports (0..%u): port %" G_GINT64_FORMAT " exceeds them",
                 nd->name, nd->ports, nd->ports - 1, port);
    return FALSE;
  }
  if (port >= 64 || (used[node * 64 + port] & 1)) {
    ytree_error (error, PS_ERROR_DATA, at, "port used twice: %s.%" G_GINT64_FORMAT " is already linked", nd->name,
                 port);
    return FALSE;
  }
  used[node * 64 + port] |= 1;
  l->a_port = (uint32_t) port;
  return TRUE;
}

/* Gen and width: the lower of the two ends', unless the link states one, which each end must reach. */
static gboolean
train (const PsConfig *file, PsTopology *t, PsLink *l, const YNode *entry, GError **error)
{
  const PsNode *a = &t->nodes[l->a], *b = &t->nodes[l->b];
  const PsConfig *ca = topo_node_cfg (file, a), *cb = topo_node_cfg (file, b);
  const struct {
    const char *key, *unit;
    int64_t ea, eb, *out, given;
  } v[2] = { { "gen", "Gen", ca->link.gen, cb->link.gen, &l->gen, l->cfg ? l->cfg->link.gen : 0 },
             { "lanes", "x", ca->link.lanes, cb->link.lanes, &l->lanes, l->cfg ? l->cfg->link.lanes : 0 } };
  for (int i = 0; i < 2; i++) {
    const YNode *n = entry->kind == YNODE_MAP ? ytree_map_get (entry, v[i].key) : NULL;
    if (!n) {
      *v[i].out = MIN (v[i].ea, v[i].eb);
      continue;
    }
    if (v[i].given > v[i].ea || v[i].given > v[i].eb) {
      gboolean low_a = v[i].ea < v[i].given;
      ytree_error (error, PS_ERROR_DATA, n, "link %s cannot train to %s%" G_GINT64_FORMAT ": %s reaches %s%"
                   G_GINT64_FORMAT " at most (its link.%s)", l->name, v[i].unit, v[i].given, low_a ? a->name : b->name,
                   v[i].unit, low_a ? v[i].ea : v[i].eb, v[i].key);
      return FALSE;
    }
    *v[i].out = v[i].given;
  }
  return TRUE;
}

static gboolean
parse_link (const PsConfig *file, PsTopology *t, guint li, const YNode *e, uint32_t *used, GError **error)
{
  PsLink *l = &t->links[li];
  const YNode *an, *bn;
  if (e->kind == YNODE_SEQ && e->items->len == 2) {
    an = e->items->pdata[0];
    bn = e->items->pdata[1];
  } else if (e->kind == YNODE_MAP) {
    for (guint i = 0; i < e->keys->len; i++) {
      const YNode *k = e->keys->pdata[i];
      g_autofree char *path = g_strconcat ("link.", k->value, NULL);
      if (!g_strv_contains (link_fields, k->value) && !ps_config_key_exists (path)) {
        g_autoptr (GPtrArray) choices = g_ptr_array_new ();
        for (const char *const *f = link_fields; *f; f++)
          g_ptr_array_add (choices, (gpointer) *f);
        for (const char *const *key = ps_config_keys (); *key; key++)
          if (g_str_has_prefix (*key, "link."))
            g_ptr_array_add (choices, (gpointer) (*key + 5));
        g_ptr_array_add (choices, NULL);
        return topo_unknown_key (k, "a link", (const char *const *) choices->pdata, error);
      }
    }
    an = ytree_map_get (e, "a");
    bn = ytree_map_get (e, "b");
    if (!an || !bn) {
      ytree_error (error, PS_ERROR_DATA, e, "a link needs both ends: a (nearer the root complex) and b");
      return FALSE;
    }
  } else {
    ytree_error (error, PS_ERROR_DATA, e, "a link is [A, B] or {a: A, b: B, …}");
    return FALSE;
  }
  int a, b;
  int64_t ap, bp;
  if (!parse_end (t, an, &a, &ap, error) || !parse_end (t, bn, &b, &bp, error))
    return FALSE;
  if (a == b) {
    ytree_error (error, PS_ERROR_DATA, bn, "a link to itself: %s is linked to %s", t->nodes[a].name,
                 t->nodes[b].name);
    return FALSE;
  }
  l->a = (guint) a;
  l->b = (guint) b;
  const YNode *name = e->kind == YNODE_MAP ? ytree_map_get (e, "name") : NULL;
  if (name && !topo_check_name (name, "a link's name", error))
    return FALSE;
  l->name = name ? g_strdup (name->value) : g_strdup_printf ("%s-%s", t->nodes[a].name, t->nodes[b].name);
  if (!take_port (t, li, an, a, ap, TRUE, used, error) || !take_port (t, li, bn, b, bp, FALSE, used, error))
    return FALSE;
  if (e->kind == YNODE_MAP) {
    /* The link's own link.* keys over the file's. */
    g_autoptr (YNode) keys = ytree_map_new (e->origin, e->line, e->col);
    for (guint i = 0; i < e->keys->len; i++) {
      const YNode *k = e->keys->pdata[i];
      if (!g_strv_contains (link_fields, k->value))
        ytree_map_set (keys, k->value, ytree_copy (e->items->pdata[i]), k);
    }
    for (int end = 0; end < 2; end++) {
      const YNode *c = ytree_map_get (e, end ? "b_rx_credits" : "a_rx_credits");
      /* The types the link does not name keep the node's advertisement. */
      l->credits[end] = *node_credits (file, &t->nodes[end ? l->b : l->a]);
      if (c && !parse_credits (c, &l->credits[end], error))
        return FALSE;
      l->has_credits[end] = c != NULL;
    }
    if (keys->keys->len) {
      g_autoptr (YNode) overlay = ytree_map_new (e->origin, e->line, e->col);
      ytree_map_set (overlay, "link", g_steal_pointer (&keys), e);
      l->cfg = ps_config_derive (file, overlay, error);
      if (!l->cfg)
        return FALSE;
    }
  }
  return train (file, t, l, e, error) && check_link_credits (file, t, l, e, error)
         && check_link_unscaled (file, t, l, e, error);
}

/* --- the graph ------------------------------------------------------------------------------------------------ */


static gboolean
check_graph (PsTopology *t, const YNode *nodes, GError **error)
{
  for (guint i = 0; i < t->n_nodes; i++) {
    gboolean named = t->nodes[i].up_link >= 0;
    for (guint l = 0; l < t->n_links && !named; l++)
      named = t->links[l].a == i;
    if (!named) {
      ytree_error (error, PS_ERROR_DATA, (const YNode *) nodes->keys->pdata[i], "disconnected node: no link names %s",
                   t->nodes[i].name);
      return FALSE;
    }
  }
  /* Following upstream links from any node must end at a node without one; coming back to where it started is a
   * cycle (a tree has none, spec §1.3). */
  for (guint i = 0; i < t->n_nodes; i++) {
    guint n = i;
    for (guint steps = 0; t->nodes[n].up_link >= 0; steps++) {
      n = t->links[t->nodes[n].up_link].a;
      if (n == i || steps > t->n_nodes) {
        g_autoptr (GString) ring = g_string_new (t->nodes[i].name);
        for (guint m = t->links[t->nodes[i].up_link].a; m != i; m = t->links[t->nodes[m].up_link].a)
          g_string_append_printf (ring, " below %s", t->nodes[m].name);
        ytree_error (error, PS_ERROR_DATA, (const YNode *) nodes->keys->pdata[i], "cycle: %s below %s: a PCIe fabric is a tree",
                     ring->str, t->nodes[i].name);
        return FALSE;
      }
    }
  }
  return TRUE;
}


/* --- the whole ----------------------------------------------------------------------------------------------- */

void
ps_topology_free (PsTopology *t)
{
  if (!t)
    return;
  for (guint i = 0; i < t->n_nodes; i++) {
    g_free (t->nodes[i].name);
    ps_config_free (t->nodes[i].cfg);
    g_free (t->nodes[i].weights);
  }
  for (guint i = 0; i < t->n_links; i++) {
    g_free (t->links[i].name);
    ps_config_free (t->links[i].cfg);
  }
  for (guint i = 0; i < t->n_flows; i++)
    g_free (t->flows[i].name);
  g_free (t->nodes);
  g_free (t->links);
  g_free (t->flows);
  g_free (t);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PsTopology, ps_topology_free)

/* A cut-through switch forwards a TLP before its LCRC is checked and nullifies its copy when the check fails (ends
 * it with EDB and an inverted LCRC, which the next receiver discards without a Nak, spec §3.6.3.1); the model does neither, so link errors at a cut-through port would run store-and-forward
 * behind the user's back and mix two effects in a study of errors: refused, the key to state named. */
static gboolean
check_error_forwarding (const PsConfig *file, const PsTopology *t, const YNode *links, GError **error)
{
  for (guint i = 0; i < t->n_links; i++) {
    const PsLink *l = &t->links[i];
    double ber = (l->cfg ? l->cfg : file)->link.ber;
    for (int e = 0; e < 2 && ber > 0; e++) {
      const PsNode *n = &t->nodes[e ? l->b : l->a];
      if (n->type != PS_NODE_SWITCH || (n->cfg ? n->cfg : file)->sw.forwarding != PS_SWITCH_CUT_THROUGH)
        continue;
      ytree_error (error, PS_ERROR_DATA, (const YNode *) links->items->pdata[i], "link %s has link.ber %g and switch %s forwards "
                   "cut_through: nullified TLPs (EDB) are not modelled, so errors need switch.forwarding: "
                   "store_and_forward", l->name, ber, n->name);
      return FALSE;
    }
  }
  return TRUE;
}

PsTopology *
ps_topology_parse (const PsConfig *file, const YNode *topology, const YNode *flows, GError **error)
{
  if (!topo_want (topology, YNODE_MAP, "topology", error))
    return NULL;
  for (guint i = 0; i < topology->keys->len; i++) {
    const YNode *k = topology->keys->pdata[i];
    if (strcmp (k->value, "nodes") && strcmp (k->value, "links")) {
      topo_unknown_key (k, "topology", (const char *const[]) { "nodes", "links", NULL }, error);
      return NULL;
    }
  }
  const YNode *nodes = ytree_map_get (topology, "nodes"), *links = ytree_map_get (topology, "links");
  if (!nodes || !links) {
    ytree_error (error, PS_ERROR_DATA, topology, "topology needs nodes: (a mapping) and links: (a list)");
    return NULL;
  }
  if (!topo_want (nodes, YNODE_MAP, "nodes", error) || !topo_want (links, YNODE_SEQ, "links", error)
      || (flows && !topo_want (flows, YNODE_SEQ, "flows", error)))
    return NULL;
  if (nodes->keys->len > PS_TOPOLOGY_MAX_NODES || links->items->len >= nodes->keys->len + 1
      || (flows && flows->items->len > PS_TOPOLOGY_MAX_FLOWS)) {
    const YNode *at = nodes->keys->len > PS_TOPOLOGY_MAX_NODES ? nodes : flows && flows->items->len
                      > PS_TOPOLOGY_MAX_FLOWS ? flows : links;
    ytree_error (error, PS_ERROR_DATA, at, "a fabric has at most %u nodes, one link fewer (a tree) and %u flows, "
                 "the sizes of the report's tables (here %u nodes, %u links, %u flows)", PS_TOPOLOGY_MAX_NODES,
                 PS_TOPOLOGY_MAX_FLOWS, nodes->keys->len, links->items->len, flows ? flows->items->len : 0);
    return NULL;
  }
  g_autoptr (PsTopology) t = g_new0 (PsTopology, 1);
  t->nodes = g_new0 (PsNode, MAX (nodes->keys->len, 1));
  int root = -1;
  for (guint i = 0; i < nodes->keys->len; i++) {
    t->n_nodes = i + 1;
    if (!parse_node (file, t, &t->nodes[i], nodes->keys->pdata[i], nodes->items->pdata[i], error))
      return NULL;
    if (t->nodes[i].type == PS_NODE_ROOT_COMPLEX) {
      if (root >= 0) {
        ytree_error (error, PS_ERROR_DATA, (const YNode *) nodes->keys->pdata[i], "two root complexes (%s and %s): a fabric has one",
                     t->nodes[root].name, t->nodes[i].name);
        return NULL;
      }
      root = (int) i;
    }
  }
  if (root < 0) {
    ytree_error (error, PS_ERROR_DATA, nodes, "no root complex: one node must be of type root_complex");
    return NULL;
  }
  t->root = (guint) root;
  t->links = g_new0 (PsLink, MAX (links->items->len, 1));
  g_autofree uint32_t *used = g_new0 (uint32_t, (gsize) t->n_nodes * 64);
  for (guint i = 0; i < links->items->len; i++) {
    t->n_links = i + 1;
    if (!parse_link (file, t, i, links->items->pdata[i], used, error))
      return NULL;
  }
  /* Ports as given, or as many as the links use (a switch at least its upstream port and one more). */
  for (guint i = 0; i < t->n_nodes; i++) {
    PsNode *nd = &t->nodes[i];
    uint32_t top = 0;
    for (uint32_t p = 0; p < 64; p++)
      if (used[i * 64 + p])
        top = p + 1;
    if (!nd->ports)
      nd->ports = nd->type == PS_NODE_ENDPOINT ? 1 : nd->type == PS_NODE_SWITCH ? MAX (top, 2) : MAX (top, 1);
    /* weights: one per port, read by weighted round robin alone: any other count or arbiter leaves some unread. */
    const YNode *nv = ytree_map_get (nodes, nd->name), *wn = nv ? ytree_map_get (nv, "weights") : NULL;
    if (wn && wn->items->len != nd->ports) {
      ytree_error (error, PS_ERROR_DATA, wn, "weights: %u given for the %u ports of switch %s (port 0 upstream): "
                   "give one per port", wn->items->len, nd->ports, nd->name);
      return NULL;
    }
    const PsConfig *ncfg = nd->cfg ? nd->cfg : file;
    if (wn && ncfg->sw.arbitration != 1) {
      ytree_error (error, PS_ERROR_DATA, wn, "weights: only switch.arbitration: weighted_round_robin reads them "
                   "(switch %s arbitrates round robin)", nd->name);
      return NULL;
    }
  }
  if (!check_graph (t, nodes, error) || !check_error_forwarding (file, t, links, error))
    return NULL;
  t->flows = g_new0 (PsFlow, MAX (flows ? flows->items->len : 0, 1));
  for (guint i = 0; flows && i < flows->items->len; i++) {
    t->n_flows = i + 1;
    if (!topo_parse_flow (file, t, i, flows->items->pdata[i], error))
      return NULL;
  }
  /* Without flows a node whose kind has a workload of its own runs it (nodes.h), one such node; else the config's
   * benchmark (the chaining DMA) runs on the fabric's endpoint: there must be one. */
  guint endpoints = 0, workloads = 0;
  for (guint i = 0; i < t->n_nodes; i++) {
    endpoints += t->nodes[i].type == PS_NODE_ENDPOINT;
    workloads += ps_node_kind (t->nodes[i].kind)->workload != NULL;
  }
  if (t->n_flows == 0 && flows == NULL && workloads > 1) {
    ytree_error (error, PS_ERROR_DATA, topology, "a fabric without flows runs one device's own workload: here %u "
                 "nodes have one", workloads);
    return NULL;
  }
  if (t->n_flows == 0 && (flows != NULL || (endpoints != 1 && workloads == 0))) {
    ytree_error (error, PS_ERROR_DATA, flows ? flows : topology, "a fabric needs flows: a list of who moves what, or "
                 "exactly one endpoint for the chaining DMA to run on (here %u)", endpoints);
    return NULL;
  }
  for (guint i = 0; i < t->n_nodes; i++) {
    guint top = topo_top_of (t, i);
    if (top != t->root) {
      ytree_error (error, PS_ERROR_DATA, (const YNode *) nodes->keys->pdata[i], "%s has no path to the root complex: %s above it "
                   "has no link towards %s", t->nodes[i].name, t->nodes[top].name, t->nodes[t->root].name);
      return NULL;
    }
  }
  return g_steal_pointer (&t);
}
