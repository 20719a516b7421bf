/* load.c — the config's keys, then its fabric, then the checks that need both (contract in load.h). */
#include "load.h"

#include "app/topology.h"
#include "app/ytree.h"

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
    for (guint i = 0; i < cfg->topology->n_nodes; i++)
      switches += cfg->topology->nodes[i].type == PS_NODE_SWITCH;
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
