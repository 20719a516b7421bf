/* load.c — the config's keys, then its fabric, then the checks that need both (contract in load.h). */
#include "app/config/load.h"

#include "app/config/nodes.h"
#include "app/config/topology.h"
#include "app/config/ytree.h"

/* A node's own ranges (its assumptions:, ps_config_derive()) join the file's as nodes.NAME.KEY, the --set that
 * moves the node's value alone. */
static void
add_node_assumptions (PsConfig *cfg, const PsNode *node)
{
  guint n = node->cfg ? node->cfg->n_assumptions : 0;
  const PsNodeKind *kind = ps_node_kind (node->kind);
  cfg->assumptions = g_renew (PsAssumption, cfg->assumptions, cfg->n_assumptions + n + kind->n_fields);
  for (guint a = 0; a < n; a++) {
    const PsAssumption *own = &node->cfg->assumptions[a];
    cfg->assumptions[cfg->n_assumptions++] = (PsAssumption) {
      g_strdup_printf ("nodes.%s.%s", node->name, own->key), own->lo, own->hi, g_strdup (own->at), own->value };
  }
  /* Its kind's own fields that keep a default with a range (nodes.h). */
  for (guint f = 0; f < kind->n_fields; f++) {
    const PsNodeField *nf = &kind->fields[f];
    if (!(nf->lo < nf->hi) || (node->fields_given & (1u << f)))
      continue;
    cfg->assumptions[cfg->n_assumptions++] = (PsAssumption) {
      g_strdup_printf ("nodes.%s.%s", node->name, nf->name), nf->lo, nf->hi,
      g_strdup_printf ("the default of topology.nodes.NAME.%s (pciesim keys)", nf->name), node->field[f] };
  }
}

static PsConfig *
load (const char *path, const char *const *sets, GError **error)
{
  YNode *topology_node = NULL, *flows_node = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load_keys (path, sets, &topology_node, &flows_node, error);
  g_autoptr (YNode) topology = topology_node;
  g_autoptr (YNode) flows = flows_node;
  if (!cfg)
    return NULL;
  guint switches = 0;
  if (topology) {
    cfg->topology = ps_topology_parse (cfg, topology, flows, error);
    if (!cfg->topology)
      return NULL;
    cfg->topology_free = ps_topology_free;
    for (guint i = 0; i < cfg->topology->n_nodes; i++) {
      const PsNode *node = &cfg->topology->nodes[i];
      switches += node->type == PS_NODE_SWITCH;
      add_node_assumptions (cfg, node);
    }
  }
  ps_config_assume_defaults (cfg, switches);
  if (!ps_config_check_fabric_keys (cfg, switches, cfg->topology ? cfg->topology->n_flows : 0, error))
    return NULL;
  return g_steal_pointer (&cfg);
}

PsConfig *
ps_config_load (const char *path, const char *const *sets, GError **error)
{
  PsConfig *cfg = load (path, sets, error);
  if (!cfg && sets)
    ps_config_mark_set (error, sets);
  return cfg;
}
