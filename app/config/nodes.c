/* nodes.c — the node-kind registry and its factories (contract in nodes.h). */
#include "app/config/nodes.h"

#include <string.h>

#include "models/devices/endpoint.h"
#include "models/devices/memdev.h"
#include "models/fabric/switch.h"
#include "models/base/units.h"

FcCredits
ps_credits (const PsCredits *c)
{
  return (FcCredits) { (uint32_t) c->ph, (uint32_t) c->pd, (uint32_t) c->nph,
                       (uint32_t) c->npd, (uint32_t) c->cplh, (uint32_t) c->cpld };
}

static Component *
build_root_complex (const PsNodeBuild *b, GError **error)
{
  if (!host_params_check (&b->sp->host, b->sp->link.max_payload_bytes, error))
    return NULL;
  return host_component (host_new (b->f, b->node->name, &b->sp->host, b->node->ports));
}

static Component *
build_switch (const PsNodeBuild *b, GError **error)
{
  const PsConfig *nc = b->cfg;
  const PsNode *n = b->node;
  SwitchParams swp = {
    .ports = n->ports,
    .forwarding = nc->sw.forwarding == PS_SWITCH_STORE_AND_FORWARD ? SWITCH_STORE_AND_FORWARD : SWITCH_CUT_THROUGH,
    .latency_ps = units_ns_to_ps (nc->sw.latency_ns),
    .dll_latency_ps = units_ns_to_ps (nc->sw.dll_latency_ns),
    .own_updatefc = nc->sw.updatefc_policy != PS_SWITCH_UPDATEFC_LINK,
    .updatefc_latency_symbols = nc->sw.updatefc_policy == PS_SWITCH_UPDATEFC_RECOMMENDED
                                    ? LINK_UPDATEFC_LATENCY_RECOMMENDED : 0,
    .arbitration = nc->sw.arbitration == PS_SWITCH_WEIGHTED_ROUND_ROBIN ? SWITCH_WEIGHTED_ROUND_ROBIN
                                                                         : SWITCH_ROUND_ROBIN,
    .port_credits = ps_credits (&nc->sw.rx_credits),
    .buffer = nc->sw.buffer == PS_SWITCH_BUFFER_SHARED ? SWITCH_BUFFER_SHARED : SWITCH_BUFFER_PER_PORT,
    .pool = ps_credits (&nc->sw.pool),
  };
  for (uint32_t p = 0; n->weights && p < n->ports && p < SWITCH_MAX_PORTS; p++)
    swp.weights[p] = n->weights[p];
  if (!switch_params_check (&swp, error))
    return NULL;
  return switch_component (switch_new (b->f, n->name, &swp));
}

/* No DMA: a fabric's endpoints move what flows ask. Every component but a root complex completes reads at 128-byte
 * boundaries (spec §2.3.1.1). With dma_mode the endpoint is the benchmark's (the one a fabric without flows has, or
 * the one-link system's): its chaining DMA and BARs as on the one-link system. */
static Component *
build_endpoint (const PsNodeBuild *b, GError **error)
{
  EndpointParams ep = { .app = b->sp->app, .rcb_bytes = ENDPOINT_RCB_BYTES,
                        .mem_read_latency_ns = b->cfg->endpoint.memory_read_latency_ns,
                        .functions = b->node->functions };
  for (guint i = 0; i < PS_TOPOLOGY_MAX_BARS; i++)
    ep.bars[i] = (FabricBar) { .size_bytes = b->node->bar_bytes[i], .is64 = b->node->bar64[i] };
  if (b->dma_mode >= 0)
    system_endpoint_params (b->sp, (SystemMode) b->dma_mode, &ep);
  if (!endpoint_params_check (&ep, error))
    return NULL;
  return endpoint_component (endpoint_new (b->f, b->node->name, &ep));
}

/* The plain memory device (models/devices/memdev.h), docs/adding-a-device.md's worked example: its BARs from the node's
 * bars:, its RCB that of every completer but a root complex (spec §2.3.1.1), its latency its own field. */
static const PsNodeField memory_fields[] = {
  { "access_latency_ns", "ns", 0, 1e9, 100,
    "a read's arrival to its first completion ready. ASSUMPTION: a DRAM-backed device, 50-200 ns (a DDR access of "
    "about 50 ns and its controller's queue)", 50, 200 },
};

static Component *
build_memory (const PsNodeBuild *b, GError **error)
{
  MemdevParams p = { .access_latency_ns = b->node->field[0], .rcb_bytes = ENDPOINT_RCB_BYTES };
  for (guint i = 0; i < PS_TOPOLOGY_MAX_BARS; i++)
    p.bars[i] = (FabricBar) { .size_bytes = b->node->bar_bytes[i], .is64 = b->node->bar64[i] };
  if (!memdev_params_check (&p, error))
    return NULL;
  return memdev_component (memdev_new (b->f, b->node->name, &p));
}

static const PsNodeKind kinds[] = {
  { .type = "root_complex", .role = PS_NODE_ROOT_COMPLEX, .section = "host", .build = build_root_complex },
  { .type = "switch", .role = PS_NODE_SWITCH, .section = "switch", .build = build_switch },
  { .type = "endpoint", .role = PS_NODE_ENDPOINT, .section = "endpoint", .build = build_endpoint,
    .requests = TRUE, .functions = TRUE },
  { .type = "memory", .role = PS_NODE_ENDPOINT, .section = NULL, .build = build_memory, .fields = memory_fields,
    .n_fields = G_N_ELEMENTS (memory_fields) },
};
G_STATIC_ASSERT (PS_NODE_ROOT_COMPLEX == 0 && PS_NODE_SWITCH == 1 && PS_NODE_ENDPOINT == 2);

const PsNodeKind *
ps_node_kind (guint index)
{
  g_assert (index < G_N_ELEMENTS (kinds));
  return &kinds[index];
}

const PsNodeKind *
ps_node_kind_find (const char *type, guint *index)
{
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (strcmp (kinds[i].type, type) == 0) {
      *index = i;
      return &kinds[i];
    }
  return NULL;
}

/* Filled once from the rows, so a new row is the only thing to write. */
const char *const *
ps_node_kind_words (void)
{
  static const char *words[G_N_ELEMENTS (kinds) + 1];
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
      words[i] = kinds[i].type;
    g_once_init_leave (&done, 1);
  }
  return words;
}
