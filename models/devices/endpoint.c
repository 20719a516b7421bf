/* endpoint.c — the endpoint component: decoding, the memory target, and the fabric's table (contract in
 * endpoint.h).
 *
 * The datapath and the DMA are their own modules; this file only joins them to the fabric and decides, for each
 * TLP the receive interface hands over, who it is for. The memory target is the simplest completer that still
 * answers as PCIe requires (RCB/MPS cuts, byte counts, the request's ID and tag): enough for peer-to-peer traffic,
 * where the data of one endpoint's DMA lives in another's BAR.
 */
#include "models/devices/endpoint.h"

#include "models/base/pattern.h"
#include "models/txn/completer.h"
#include "models/base/units.h"

struct Endpoint {
  Component base; /* first: the fabric's view (fabric.h) */
  EndpointParams p;
  SimEngine *engine;
  TlpPool *pool;
  App *app;
  DmaChain *dma;
  /* Memory target: reads waiting for their data or being completed, as copies of their MRds, answered in arrival
   * order (completer.h). */
  TxnCompleter cpl;
  SimTime read_latency_ps;
  gboolean wake_pending;
  EndpointCounters c;
  EndpointCplFn cpl_fn; /* endpoint_set_requester(): completions go here rather than to the DMA */
  void *cpl_ctx;
};

gboolean
endpoint_params_check (const EndpointParams *p, GError **error)
{
  if (!app_params_check (&p->app, error) || (p->has_dma && !dma_params_check (&p->dma, error)))
    return FALSE;
  if (p->has_dma && p->bars[0].size_bytes < DMA_REG_BYTES) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "BAR0 of %" G_GUINT64_FORMAT " bytes cannot hold the "
                 "DMA's %u bytes of registers", p->bars[0].size_bytes, DMA_REG_BYTES);
    return FALSE;
  }
  if (p->functions > FABRIC_MAX_FUNCTIONS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%u functions: a device has 1 to %u (the requester ID's "
                 "3-bit function number, spec §7.5)", p->functions, FABRIC_MAX_FUNCTIONS);
    return FALSE;
  }
  if (p->rcb_bytes != 0 && p->rcb_bytes != ENDPOINT_RCB_BYTES) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "read completion boundary %u bytes: an endpoint "
                 "completes with %u (spec §2.3.1.1: only a root complex may use 64)", p->rcb_bytes, ENDPOINT_RCB_BYTES);
    return FALSE;
  }
  if (!(p->mem_read_latency_ns >= 0 && p->mem_read_latency_ns < 1e12)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "memory read latency %g ns: must be finite and >= 0",
                 p->mem_read_latency_ns);
    return FALSE;
  }
  return TRUE;
}

/* --- memory target ---------------------------------------------------------------------------------------- */

static void
mem_wake (SimEngine *e, void *ctx, uint64_t arg)
{
  Endpoint *ep = ctx;
  ep->wake_pending = FALSE;
  app_kick (ep->app);
}

/* The head request's next completion, when its data is ready: one event brings the arbiter back otherwise, as
 * nothing else would. */
static gboolean
mem_peek (void *ctx, Tlp *probe)
{
  Endpoint *ep = ctx;
  Tlp *r = txn_cpl_next (&ep->cpl);
  if (r == NULL)
    return FALSE;
  if (sim_now (ep->engine) < r->stamp_ps) {
    if (!ep->wake_pending) {
      ep->wake_pending = TRUE;
      sim_schedule_at (ep->engine, r->stamp_ps, mem_wake, ep, 0);
    }
    return FALSE;
  }
  uint32_t size = txn_cpl_size (&ep->cpl, r);
  *probe = (Tlp) { 0 };
  tlp_set (probe, TLP_CPLD, FALSE, r->address, size);
  return TRUE;
}

static Tlp *
mem_take (void *ctx, const Tlp *probe)
{
  Endpoint *ep = ctx;
  gboolean last;
  Tlp *c = txn_cpl_emit (&ep->cpl, txn_cpl_next (&ep->cpl), probe->payload_bytes, ep->pool, &last);
  ep->c.cpls++;
  ep->c.cpl_bytes += c->payload_bytes;
  ep->c.cpl_checksum += pattern_sum (c->address, c->payload_bytes);
  return c;
}

static const AppTxClient mem_client = { .peek = mem_peek, .take = mem_take };

/* The completer refuses a tag of the requester's busy twice (completer.h's check_tags, over the few reads a memory
 * target holds). */
static void
mem_read (Endpoint *ep, const Tlp *t)
{
  Tlp *r = tlp_alloc_copy (ep->pool, t);
  ep->c.reads++;
  ep->c.read_bytes_requested += t->length_bytes;
  txn_cpl_accept (&ep->cpl, r, 0, 0);
  app_kick (ep->app);
}

/* --- decoding ------------------------------------------------------------------------------------------------ */

static void
ep_rx (void *ctx, const Tlp *t)
{
  Endpoint *ep = ctx;
  fabric_delivered (&ep->base, t);
  if (t->kind == TLP_CPLD || t->kind == TLP_CPL) {
    /* Switches route by bus (fabric.h); here the device hands it to the function its ID names. */
    SIM_INVARIANT ((t->requester & ~7u) == ep->base.id && (t->requester & 7u) < ep->base.n_functions
                   && (ep->cpl_fn != NULL || (ep->dma != NULL && t->requester == ep->base.id)), "%s (%04x, %u "
                   "functions): a completion for requester %04x", ep->base.name, ep->base.id, ep->base.n_functions,
                   t->requester);
    if (ep->cpl_fn != NULL)
      ep->cpl_fn (ep->cpl_ctx, t);
    else
      dma_chain_completion (ep->dma, t);
    return;
  }
  uint64_t off;
  int bar = fabric_bar_of (&ep->base, t->address, &off);
  SIM_INVARIANT (bar >= 0 && t->kind != TLP_MSI, "%s: a %s at 0x%" G_GINT64_MODIFIER "x, outside its BARs",
                 ep->base.name, tlp_kind_name (t->kind), t->address);
  if (bar == 0 && ep->dma != NULL && off < DMA_REG_BYTES) {
    SIM_INVARIANT (t->kind == TLP_MWR, "%s: a read of DMA register 0x%" G_GINT64_MODIFIER "x (not modelled)",
                   ep->base.name, off);
    /* The PIO write carries the register value in its cookie and the time it left the host in its stamp. */
    dma_chain_register_write (ep->dma, off, (uint32_t) t->cookie, t->stamp_ps);
    return;
  }
  if (t->kind == TLP_MRD) {
    mem_read (ep, t);
    return;
  }
  ep->c.writes++;
  ep->c.bytes_written += t->payload_bytes;
  ep->c.write_checksum += pattern_sum (t->address, t->payload_bytes);
}

/* --- the fabric's table ------------------------------------------------------------------------------------- */

static void
ep_receive (Component *c, FabricPort *port, Tlp *t)
{
  app_link_rx (((Endpoint *) c)->app, port->link_port, t);
}

static void
ep_tx_ready (Component *c, FabricPort *port)
{
  app_link_tx_ready (((Endpoint *) c)->app, port->link_port);
}

static void
ep_attached (Component *c, FabricPort *port)
{
  Endpoint *ep = (Endpoint *) c;
  app_attach (ep->app, port->link_port);
  ep->cpl.mps = link_params (port->link)->max_payload_bytes; /* the link's: no completion is larger */
  if (ep->dma != NULL)
    dma_chain_attach (ep->dma);
}

static void
ep_enumerated (Component *c)
{
  Endpoint *ep = (Endpoint *) c;
  if (ep->dma != NULL)
    dma_chain_set_requester (ep->dma, c->id);
}

static gboolean
ep_check (const Component *c, GError **error)
{
  const Endpoint *ep = (const Endpoint *) c;
  if (ep->dma != NULL && !dma_chain_check_invariants (ep->dma, error))
    return FALSE;
  if (!app_idle (ep->app) || ep->cpl.n > 0 || ep->c.cpl_bytes != ep->c.read_bytes_requested) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: work left at the end (datapath %s, %"
                 G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes read from its memory completed)", c->name,
                 app_idle (ep->app) ? "idle" : "busy", ep->c.cpl_bytes, ep->c.read_bytes_requested);
    return FALSE;
  }
  return TRUE;
}

static uint64_t
ep_progress (const Component *c)
{
  const Endpoint *ep = (const Endpoint *) c;
  uint64_t n = ep->c.reads + ep->c.writes + ep->c.cpls;
  if (ep->dma != NULL) {
    DmaCounters dc = dma_chain_counters (ep->dma);
    n += dc.cpls + dc.unexpected_cpls + dc.mrds + dc.mwrs;
  }
  return n;
}

static void
ep_describe (const Component *c, GString *out)
{
  const Endpoint *ep = (const Endpoint *) c;
  if (ep->dma != NULL)
    dma_chain_describe_wait (ep->dma, out);
  if (ep->cpl.n > 0)
    g_string_append_printf (out, "%smemory target: %u reads to answer", out->len ? "; " : "", ep->cpl.n);
}

/* A read waits for the memory target's latency: the longest the endpoint may take to answer. */
static SimTime
ep_silence (const Component *c)
{
  return ((const Endpoint *) c)->read_latency_ps;
}

/* The DMA's registers open BAR0; buffers start at the next 4 KB page, where a driver would put them. */
static uint64_t
ep_reserved (const Component *c, uint32_t bar)
{
  const uint64_t page = 4096;
  return bar == 0 && ((const Endpoint *) c)->dma != NULL ? (DMA_REG_BYTES + page - 1) / page * page : 0;
}

static void
ep_memory (const Component *c, FabricMemory *out)
{
  const EndpointCounters *e = &((const Endpoint *) c)->c;
  *out = (FabricMemory) { e->cpl_bytes, e->cpl_checksum, e->bytes_written, e->write_checksum };
}

static void
ep_free (Component *c)
{
  Endpoint *ep = (Endpoint *) c;
  txn_cpl_clear (&ep->cpl, ep->pool);
  dma_chain_free (ep->dma);
  app_free (ep->app);
  g_free (ep);
}

/* The endpoint as the source of another's workload (fabric.h, a flow's): its datapath's transmit clients, and the
 * completions it does not give its DMA. */
static void
ep_add_client (Component *c, const FabricTxClient *client, void *ctx)
{
  app_add_client (((Endpoint *) c)->app, client, ctx);
}

static void
ep_kick (Component *c)
{
  app_kick (((Endpoint *) c)->app);
}

static void
ep_set_completions (Component *c, FabricCplFn fn, void *ctx)
{
  endpoint_set_requester ((Endpoint *) c, fn, ctx);
}

static SimTime
ep_unit_ps (const Component *c)
{
  return app_unit_ps (((const Endpoint *) c)->app);
}

static const ComponentRequests endpoint_requests = {
  .add_client = ep_add_client, .kick = ep_kick, .set_completions = ep_set_completions, .unit_ps = ep_unit_ps,
};

static const ComponentKind endpoint_kind = {
  .name = "endpoint",
  .receive = ep_receive,
  .tx_ready = ep_tx_ready,
  .attached = ep_attached,
  .enumerated = ep_enumerated,
  .check_invariants = ep_check,
  .progress = ep_progress,
  .describe_wait = ep_describe,
  .silence_ps = ep_silence,
  .reserved_bytes = ep_reserved,
  .requests = &endpoint_requests,
  .memory = ep_memory,
  .free = ep_free,
};

Endpoint *
endpoint_new (Fabric *f, const char *name, const EndpointParams *p)
{
  /* As every constructor: the caller has checked. */
  g_autoptr (GError) e = NULL;
  if (!endpoint_params_check (p, &e))
    g_error ("endpoint_new: %s", e->message);
  Endpoint *ep = g_new0 (Endpoint, 1);
  ep->p = *p;
  ep->engine = fabric_engine (f);
  ep->pool = fabric_pool (f);
  ep->read_latency_ps = units_ns_to_ps (p->mem_read_latency_ns);
  ep->base.n_functions = p->functions;
  for (guint i = 0; i < FABRIC_MAX_BARS; i++)
    ep->base.bars[i] = (FabricBar) { .size_bytes = p->bars[i].size_bytes, .is64 = p->bars[i].is64 };
  ep->app = app_new (ep->engine, &p->app, NULL, ep->pool);
  ep->read_latency_ps += (SimTime) p->mem_read_latency_cycles * app_cycle_ps (ep->app);
  TxnCplParams cp = { .rcb_bytes = ENDPOINT_RCB_BYTES, .policy = CPL_POLICY_MPS, .in_order = TRUE, .check_tags = TRUE,
                      .latency_ps = ep->read_latency_ps };
  txn_cpl_init (&ep->cpl, NULL, &cp, 0, ep->engine, NULL, NULL);
  /* The DMA's engines register first, so the memory target is the datapath's last client in priority order. */
  if (p->has_dma)
    ep->dma = dma_chain_new (ep->engine, &p->dma, ep->app, ep->pool);
  app_add_client (ep->app, &mem_client, ep);
  app_set_rx (ep->app, ep_rx, ep);
  fabric_add (f, &ep->base, &endpoint_kind, COMPONENT_ENDPOINT, name, 1);
  ep->cpl.name = ep->base.name;
  return ep;
}

Component *
endpoint_component (Endpoint *ep)
{
  return &ep->base;
}

Endpoint *
endpoint_from_component (Component *c)
{
  return c != NULL && c->kind == &endpoint_kind ? (Endpoint *) c : NULL;
}

const EndpointParams *
endpoint_params (const Endpoint *ep)
{
  return &ep->p;
}

App *
endpoint_app (Endpoint *ep)
{
  return ep->app;
}

DmaChain *
endpoint_dma (Endpoint *ep)
{
  return ep->dma;
}

uint64_t
endpoint_bar (const Endpoint *ep, guint bar)
{
  g_assert (bar < FABRIC_MAX_BARS && ep->base.enumerated);
  return ep->base.bars[bar].base;
}

EndpointCounters
endpoint_counters (const Endpoint *ep)
{
  return ep->c;
}

void
endpoint_set_requester (Endpoint *ep, EndpointCplFn fn, void *ctx)
{
  ep->cpl_fn = fn;
  ep->cpl_ctx = ctx;
}
