/* topology_impl.h — what the files of the topology parser share, and nothing else includes: the small readers
 * every part uses, each refusal located at its node (topology_read.c); the tree's paths (topology_graph.c); a flow's
 * parsing (topology_flows.c), which topology.c calls once the nodes, links and graph stand. */
#pragma once

#include "app/config/topology.h"

/* A node of `kind`, else an error at it naming `what`. */
gboolean topo_want (const YNode *n, YNodeKind kind, const char *what, GError **error);
/* A whole number in [min, max], a number in [min, max], one of `words` (its index), each located when refused. */
gboolean topo_read_int (const YNode *n, const char *what, int64_t min, int64_t max, int64_t *out, GError **error);
gboolean topo_read_double (const YNode *n, const char *what, double min, double max, double *out, GError **error);
gboolean topo_read_word (const YNode *n, const char *what, const char *const *words, int *out, GError **error);
/* A name a --set can address (nodes.NAME.KEY): letters, digits, '_' and '-'. */
gboolean topo_check_name (const YNode *n, const char *what, GError **error);
/* The unknown-key error at `key`, with a did-you-mean among `choices`. */
gboolean topo_unknown_key (const YNode *key, const char *where, const char *const *choices, GError **error);
/* The node named `name` (its index), or -1; and the error for one that is not there, with a did-you-mean. */
int topo_find_node (const PsTopology *t, const char *name);
gboolean topo_no_such_node (const PsTopology *t, const YNode *n, const char *name, GError **error);
/* The config a node runs with: its own when it set any key, else the file's. */
const PsConfig *topo_node_cfg (const PsConfig *file, const PsNode *n);
/* The topmost node above `n` by upstream links (the root complex for a node below it). */
guint topo_top_of (const PsTopology *t, guint n);
/* Flow `fi` from its entry `e`, checked against the nodes, links and paths already parsed. */
gboolean topo_parse_flow (const PsConfig *file, PsTopology *t, guint fi, const YNode *e, GError **error);
