/* nodes.c — the node-kind registry and its factories (contract in nodes.h). */
#include "app/config/nodes.h"

#include <math.h>
#include <string.h>

#include "models/devices/endpoint.h"
#include "models/devices/memdev.h"
#include "models/devices/cpu.h"
#include "models/devices/nvme.h"
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
    "about 50 ns and its controller's queue)", 50, 200, 0 },
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

/* The NVMe SSD (models/devices/nvme.h) and its host driver's run (models/workloads/nvme_driver.h): what the device
 * is (queues it serves, tags, flash, interrupt coalescing) and what the run asks of it, as fio would (queue pairs,
 * depth, block size, read/write mix, commands), in one node. */
static const PsNodeField nvme_fields[] = {
  { "queues", "queues", 1, CPU_MAX_THREADS, 4, "I/O queue pairs the driver creates, one per core of the host's CPU "
    "(Linux's blk-mq; fio's numjobs): a choice of the run", 0, 0, 1 },
  { "queue_depth", "commands", 1, 4096, 32, "commands each queue keeps in flight (fio's iodepth): a choice of the "
    "run", 0, 0, 1 },
  { "block_bytes", "bytes", 512, 1048576, 4096, "data per command, whole 512-byte sectors (fio's bs): a choice of "
    "the run", 0, 0, 512 },
  { "write_percent", "%", 0, 100, 0, "share of commands that write to flash, spread evenly (fio's rwmixwrite): a "
    "choice of the run", 0, 0, 0 },
  { "commands", "commands", 1, 1e7, 20000, "commands in the run, every queue together", 0, 0, 1 },
  { "flash_read_ns", "ns", 0, 1e7, 70000, "a read command's time in the drive between its fetch and its data "
    "(median): NAND page read, ECC, FTL lookup. ASSUMPTION: TLC NAND reads a page in 50-100 us with its controller's "
    "work", 50000, 100000, 0 },
  { "flash_read_spread", "ratio", 1, 100, 1.3, "p99 / median of flash_read_ns, a lognormal (models/base/dist.h); 1: "
    "every read takes the median. ASSUMPTION: 1.1-2 (die collisions, read retries)", 1.1, 2, 0 },
  { "flash_program_ns", "ns", 0, 1e7, 20000, "a write command's time in the drive between its data and its "
    "completion (median). ASSUMPTION: a data-centre drive acknowledges a write once it is in its power-loss "
    "protected DRAM, which hides the NAND program time (hundreds of us): 10-30 us", 10000, 30000, 0 },
  { "flash_program_spread", "ratio", 1, 100, 1.3, "p99 / median of flash_program_ns, a lognormal; 1: fixed. "
    "ASSUMPTION: 1.1-2", 1.1, 2, 0 },
  { "coalesce_threshold", "entries", 1, 256, 1, "completion entries per interrupt (NVMe 2.0 §5.27.1.5, Interrupt "
    "Coalescing's aggregation threshold); 1, the default: an interrupt per entry, as Linux's nvme driver leaves it",
    0, 0, 1 },
  { "coalesce_time_ns", "ns", 0, 25.5e6, 0, "the oldest unsignalled entry waits at most this for its interrupt "
    "(the aggregation time, 100 us units in the spec); 0: no wait", 0, 0, 0 },
  { "submit_ns", "ns", 0, 1e6, 1500, "the driver's core time to build and submit one command, doorbell write "
    "included. ASSUMPTION: Linux's block layer and nvme driver take 1-3 us of a core per I/O", 1000, 3000, 0 },
  { "complete_ns", "ns", 0, 1e6, 1500, "the driver's core time to reap one completion in the interrupt handler. "
    "ASSUMPTION: 1-3 us of a core per I/O, as submit_ns", 1000, 3000, 0 },
  { "tags", "tags", 1, 256, 256, "MRds the controller has outstanding at once (command fetches, PRP lists, write "
    "data): 8-bit tags (spec §2.2.6.2). ASSUMPTION: it uses all 256, 64-256", 64, 256, 1 },
};

/* A lognormal of median and p99 = median x spread; spread 1: fixed. */
static Dist *
flash_dist (double median_ns, double spread, GError **error)
{
  return spread > 1 && median_ns > 0 ? dist_new_lognormal (median_ns, median_ns * spread, error)
                                     : dist_new_fixed (median_ns, error);
}

static Component *
build_nvme (const PsNodeBuild *b, GError **error)
{
  const PsNode *n = b->node;
  g_autoptr (Dist) rd = flash_dist (ps_node_field (n, "flash_read_ns"), ps_node_field (n, "flash_read_spread"), error);
  g_autoptr (Dist) wr = rd ? flash_dist (ps_node_field (n, "flash_program_ns"),
                                         ps_node_field (n, "flash_program_spread"), error) : NULL;
  if (!wr)
    return NULL;
  NvmeParams p = { .queues = (uint32_t) ps_node_field (n, "queues"),
                   .queue_depth = (uint32_t) ps_node_field (n, "queue_depth"),
                   .tags = (uint32_t) ps_node_field (n, "tags"),
                   .max_read_request_bytes = (uint32_t) b->cfg->link.max_read_request,
                   .coalesce_threshold = (uint32_t) ps_node_field (n, "coalesce_threshold"),
                   .coalesce_time_ns = ps_node_field (n, "coalesce_time_ns"), .read_latency = rd,
                   .program_latency = wr };
  if (!nvme_params_check (&p, error))
    return NULL;
  return nvme_component (nvme_new (b->f, n->name, &p));
}

static const PsNodeKind kinds[] = {
  { .type = "root_complex", .role = PS_NODE_ROOT_COMPLEX, .section = "host", .build = build_root_complex },
  { .type = "switch", .role = PS_NODE_SWITCH, .section = "switch", .build = build_switch },
  { .type = "endpoint", .role = PS_NODE_ENDPOINT, .section = "endpoint", .build = build_endpoint,
    .requests = TRUE, .functions = TRUE },
  { .type = "memory", .role = PS_NODE_ENDPOINT, .section = NULL, .build = build_memory, .fields = memory_fields,
    .n_fields = G_N_ELEMENTS (memory_fields) },
  { .type = "nvme", .role = PS_NODE_ENDPOINT, .section = NULL, .build = build_nvme, .fields = nvme_fields,
    .n_fields = G_N_ELEMENTS (nvme_fields), .workload = "nvme" },
};
G_STATIC_ASSERT (G_N_ELEMENTS (nvme_fields) <= PS_NODE_MAX_FIELDS);
G_STATIC_ASSERT (PS_NODE_ROOT_COMPLEX == 0 && PS_NODE_SWITCH == 1 && PS_NODE_ENDPOINT == 2);

const PsNodeKind *
ps_node_kind (guint index)
{
  g_assert (index < G_N_ELEMENTS (kinds));
  return &kinds[index];
}

double
ps_node_field (const PsNode *n, const char *name)
{
  const PsNodeKind *k = ps_node_kind (n->kind);
  for (guint i = 0; i < k->n_fields; i++)
    if (strcmp (k->fields[i].name, name) == 0)
      return n->field[i];
  g_error ("node kind %s has no field %s", k->type, name);
}

double
ps_node_field_snap (const char *field, double v)
{
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    for (guint f = 0; f < kinds[i].n_fields; f++) {
      const PsNodeField *nf = &kinds[i].fields[f];
      if (strcmp (nf->name, field) == 0 && nf->step > 0)
        return MIN (MAX (round (v / nf->step) * nf->step, nf->min), nf->max);
    }
  return v;
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
