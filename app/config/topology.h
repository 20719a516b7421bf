/* topology.h — a config's fabric: the topology: section (nodes and the links between them) and the flows: list
 * (who moves what), parsed, checked and ready for the builder.
 *
 * Contract:
 * - topology: {nodes: {NAME: NODE, …}, links: [LINK, …]}. A NODE is a mapping with `type` (root_complex, switch or
 *   endpoint), optional `ports` (a root complex's root ports, a switch's ports counting its upstream port 0;
 *   default: as many as its links use), an endpoint's `bars` (up to six sizes in bytes, 0 for none, or
 *   {bytes, bits: 64}; default one 16 MB BAR), an endpoint's `functions` (1..8, default 1: a multi-function
 *   device, spec §7.5, whose functions bus:00.f share its link), a switch's `weights` (weighted round robin, one
 *   per port), an `include` (a file or list, as in a config) and any config sections (link, endpoint, host,
 *   switch, …): the node's own config is the file's with these over it (ps_config_derive()). Exactly one root
 *   complex.
 * - A LINK is [A, B] or {a: A, b: B, …}: A is the end nearer the root complex (a root port or a switch's downstream
 *   port), B the other (an endpoint, or a switch's upstream port 0); each is NODE or NODE.PORT (the next free
 *   port when no port is given). The link trains to the lower generation and width of its two ends (each end's
 *   link.gen and link.lanes) unless it states `gen`/`lanes`, which both ends must reach; any other link.* key it
 *   states overrides the file's for this link; `a_rx_credits` / `b_rx_credits` override the types they name of what
 *   that end's receiver advertises (by default an endpoint's endpoint.rx_credits, a root port's host.rx_credits, a
 *   switch port's switch.rx_credits); each end must take one max-size TLP (spec §3.4.2) and a switch port's
 *   header credits are finite. Links are named "A-B" by their nodes unless given a `name`.
 * - A FLOW is {name, source, target, op: write|read, bytes, iterations: 1, start_ns: 0, rate_mbps: 0 (no cap),
 *   bar: 0, function: 0}: source an endpoint (its function `function`, below its functions), target the root
 *   complex (host memory) or another endpoint (its BAR `bar`, function 0's).
 * - Without flows: the fabric has exactly one endpoint, and the config's benchmark (the chaining DMA or PIO modes,
 *   benchmark.*) runs on it as on a one-link config, across the switches above it (app/run/builder.h).
 * - Every error is located at the node it is about and is PS_ERROR_DATA: an unknown key or node (with a
 *   did-you-mean), a port used twice or beyond the node's ports, a link to itself or the wrong way round, a node no
 *   link names, a cycle, a node with no path to the root complex, widths or generations the ends cannot train to, a
 *   flow with no path, from a non-endpoint or a function it lacks, or to a node without the BAR, flows that do not
 *   fit their memory.
 * - Limits: PS_TOPOLOGY_MAX_NODES nodes, PS_TOPOLOGY_MAX_FLOWS flows (reports keep them in fixed arrays). 512 of
 *   each holds bench's fabric-256 (150 nodes, 256 flows: issue #28) with room to spare; a PsRunResult is then
 *   ~130 KB, still fine on any thread's stack.
 */
#pragma once

#include "app/config/config.h"
#include "app/config/ytree.h"

#define PS_TOPOLOGY_MAX_NODES 512u
#define PS_TOPOLOGY_MAX_LINKS (PS_TOPOLOGY_MAX_NODES - 1)
#define PS_TOPOLOGY_MAX_FLOWS 512u
#define PS_TOPOLOGY_MAX_BARS 6u
#define PS_NODE_MAX_FIELDS 16u

typedef enum { PS_NODE_ROOT_COMPLEX, PS_NODE_SWITCH, PS_NODE_ENDPOINT } PsNodeType;
typedef enum { PS_FLOW_WRITE, PS_FLOW_READ } PsFlowOp;

typedef struct {
  char *name;
  PsNodeType type; /* its role in the tree */
  guint kind; /* its row in the node-kind registry (app/config/nodes.h) */
  double field[PS_NODE_MAX_FIELDS]; /* its kind's own fields, in the row's order */
  guint fields_given; /* bit i: field[i] written in its node (or by a --set), not its default */
  uint32_t ports;
  PsConfig *cfg; /* its own config */
  uint64_t bar_bytes[PS_TOPOLOGY_MAX_BARS]; /* endpoint */
  gboolean bar64[PS_TOPOLOGY_MAX_BARS];
  uint32_t *weights; /* switch: one per port, 0 = 1 (NULL: all 1) */
  uint32_t functions; /* endpoint: its functions, 1..8 (spec §7.5); 1 for every other node */
  int up_link; /* the link to its upstream side, -1 for the root complex */
} PsNode;

typedef struct {
  char *name;
  guint a, b; /* nodes: a the downstream-facing end (nearer the root), b the upstream-facing one */
  uint32_t a_port, b_port;
  int64_t gen, lanes; /* as trained */
  PsConfig *cfg; /* with the link's own keys; NULL: the file's */
  gboolean has_credits[2]; /* by end (0 = a) */
  PsCredits credits[2];
} PsLink;

typedef struct {
  char *name;
  guint source, target; /* nodes */
  guint bar;
  uint32_t function; /* the source's function making the requests, below its functions */
  PsFlowOp op;
  int64_t bytes, iterations;
  double start_ns, rate_mbps;
} PsFlow;

struct PsTopology {
  PsNode *nodes;
  guint n_nodes, root;
  PsLink *links;
  guint n_links;
  PsFlow *flows;
  guint n_flows;
};

/* `cfg` is the file's config (its tree and --sets kept, config.h); topology and flows the sections (flows may be
 * NULL). NULL with a located error when anything is wrong. */
/* The topology: and flows: fields with their types, defaults, units and meanings, as rows of `pciesim keys`
 * (after the config keys; the man page and docs/configs.md's key table list them from there). */
void ps_topology_print_fields (GString *out, gboolean markdown);
PsTopology *ps_topology_parse (const PsConfig *cfg, const YNode *topology, const YNode *flows, GError **error);
void ps_topology_free (PsTopology *t);
const char *ps_node_type_name (PsNodeType type);
/* A config that runs flows: a topology with flows (without them, its benchmark runs on the one endpoint). */
gboolean ps_config_runs_flows (const PsConfig *cfg);
/* The first endpoint node's index (n_nodes when none). */
guint ps_topology_endpoint (const PsTopology *t);
/* The links a flow's TLPs cross from source to target, in order; returns how many (at most n_links). */
guint ps_topology_path (const PsTopology *t, guint from, guint to, guint *links);
