/* memdev.c — the plain memory device (contract in memdev.h).
 *
 * Everything a device needs to live on the fabric is its ComponentKind: receive (a TLP arrived), tx_ready (the link
 * takes TLPs again), attached (its link is there), check_invariants, progress (the watchdog's sign of life),
 * describe_wait (the deadlock message), memory (the run's ledger) and free. The reads wait in a FIFO of copies of
 * their MRds, threaded through the TLPs themselves, so nothing allocates per TLP beyond the fabric's pool. */
#include "models/devices/memdev.h"

#include "models/base/pattern.h"
#include "models/fabric/run.h"
#include "models/txn/completer.h"
#include "models/base/units.h"

struct Memdev {
  Component base; /* first: the fabric's view */
  MemdevParams p;
  SimEngine *engine;
  TlpPool *pool;
  LinkPort *port;
  TxnCompleter cpl; /* reads, answered in arrival order (completer.h) */
  TxnTagSet tags; /* its tag-reuse check: a bitmap, as a deep queue of reads makes a walk of them slow */
  SimEventId wake;
  FabricMemory c;
  uint64_t reads, writes, read_bytes_requested;
};

static const ComponentKind memdev_kind;
gboolean
memdev_params_check (const MemdevParams *p, GError **error)
{
  gboolean bar = FALSE;
  for (guint i = 0; i < FABRIC_MAX_BARS; i++)
    bar = bar || p->bars[i].size_bytes > 0;
  if (!(p->access_latency_ns >= 0 && p->access_latency_ns < 1e12) || (p->rcb_bytes != 64 && p->rcb_bytes != 128)
      || !bar) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "access latency %g ns (finite, >= 0), RCB %u bytes (64 or "
                 "128) and at least one BAR", p->access_latency_ns, p->rcb_bytes);
    return FALSE;
  }
  return TRUE;
}

static void pump (Memdev *m);

static void
wake (SimEngine *e, void *ctx, uint64_t arg)
{
  Memdev *m = ctx;
  m->wake = SIM_EVENT_NONE;
  pump (m);
}

/* Completions for the head read while its data is ready and the link takes them; one event waits for the data. */
static void
pump (Memdev *m)
{
  for (Tlp *r; (r = txn_cpl_next (&m->cpl)) != NULL;) {
    if (sim_now (m->engine) < r->stamp_ps) {
      if (!sim_event_pending (m->engine, m->wake))
        m->wake = sim_schedule_at (m->engine, r->stamp_ps, wake, m, 0);
      return;
    }
    uint32_t size = txn_cpl_size (&m->cpl, r);
    Tlp probe = { 0 };
    tlp_set (&probe, TLP_CPLD, FALSE, r->address, size);
    if (!link_port_can_send (m->port, &probe))
      return; /* tx_ready resumes */
    gboolean last;
    Tlp *c = txn_cpl_emit (&m->cpl, r, size, m->pool, &last);
    m->c.cpl_bytes += size;
    m->c.cpl_checksum += pattern_sum (c->address, size);
    link_port_send (m->port, c);
  }
}

static void
receive (Component *comp, FabricPort *port, Tlp *t)
{
  Memdev *m = (Memdev *) comp;
  link_port_consume (port->link_port, t);
  fabric_delivered (comp, t);
  uint64_t off;
  SIM_INVARIANT ((t->kind == TLP_MWR || t->kind == TLP_MRD) && fabric_bar_of (comp, t->address, &off) >= 0,
                 "%s: a %s at 0x%" G_GINT64_MODIFIER "x, not a memory access in its BARs", comp->name,
                 tlp_kind_name (t->kind), t->address);
  if (t->kind == TLP_MWR) {
    m->writes++;
    m->c.bytes_written += t->payload_bytes;
    m->c.write_checksum += pattern_sum (t->address, t->payload_bytes);
    tlp_free (m->pool, t);
    return;
  }
  m->reads++;
  m->read_bytes_requested += t->length_bytes;
  txn_cpl_accept (&m->cpl, t, 0, 0);
  pump (m);
}

static void
tx_ready (Component *comp, FabricPort *port)
{
  pump ((Memdev *) comp);
}

static void
attached (Component *comp, FabricPort *port)
{
  Memdev *m = (Memdev *) comp;
  m->port = port->link_port;
  m->cpl.mps = link_params (port->link)->max_payload_bytes; /* the link's: no completion is larger */
}

/* The fabric's buses and functions are known: one tag row for each requester there may be. */
static void
enumerated (Component *comp)
{
  Memdev *m = (Memdev *) comp;
  txn_tags_clear (&m->tags); /* a fabric enumerated again sizes it again */
  txn_tags_init_fabric (&m->tags, comp->name, comp->fabric);
  m->cpl.tags = &m->tags;
}

static gboolean
check (const Component *comp, GError **error)
{
  const Memdev *m = (const Memdev *) comp;
  if (m->cpl.n > 0 || m->c.cpl_bytes != m->read_bytes_requested) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                 " bytes read from it completed", comp->name, m->c.cpl_bytes, m->read_bytes_requested);
    return FALSE;
  }
  return TRUE;
}

static uint64_t
progress (const Component *comp)
{
  const Memdev *m = (const Memdev *) comp;
  return m->reads + m->writes + m->c.cpl_bytes;
}

static void
describe_wait (const Component *comp, GString *out)
{
  const Memdev *m = (const Memdev *) comp;
  if (m->cpl.n > 0)
    g_string_append_printf (out, "%u reads to answer", m->cpl.n);
}

static void
memory (const Component *comp, FabricMemory *out)
{
  *out = ((const Memdev *) comp)->c;
}

/* Every read and write waits the access latency: the longest the device may be silent while it owes an answer. */
static SimTime
silence (const Component *comp)
{
  return units_ns_to_ps (((const Memdev *) comp)->p.access_latency_ns);
}

static void
memdev_free (Component *comp)
{
  Memdev *m = (Memdev *) comp;
  txn_cpl_clear (&m->cpl, m->pool);
  txn_tags_clear (&m->tags);
  g_free (m);
}

static const ComponentKind memdev_kind = {
  .name = "memory device", .receive = receive, .tx_ready = tx_ready, .attached = attached, .enumerated = enumerated,
  .check_invariants = check, .progress = progress, .describe_wait = describe_wait, .silence_ps = silence,
  .memory = memory,
  .free = memdev_free,
};

Memdev *
memdev_new (Fabric *f, const char *name, const MemdevParams *p)
{
  g_autoptr (GError) e = NULL;
  if (!memdev_params_check (p, &e))
    g_error ("memdev_new: %s", e->message);
  Memdev *m = g_new0 (Memdev, 1);
  m->p = *p;
  m->engine = fabric_engine (f);
  m->pool = fabric_pool (f);
  m->wake = SIM_EVENT_NONE;
  for (guint i = 0; i < FABRIC_MAX_BARS; i++)
    m->base.bars[i] = (FabricBar) { .size_bytes = p->bars[i].size_bytes, .is64 = p->bars[i].is64 };
  fabric_add (f, &m->base, &memdev_kind, COMPONENT_ENDPOINT, name, 1);
  /* The tag check the other completers make, which this one lacked. */
  TxnCplParams cp = { .rcb_bytes = p->rcb_bytes, .policy = CPL_POLICY_MPS, .in_order = TRUE, .check_tags = TRUE,
                      .latency_ps = units_ns_to_ps (p->access_latency_ns) };
  txn_cpl_init (&m->cpl, m->base.name, &cp, 0, m->engine, NULL, NULL);
  return m;
}

Component *
memdev_component (Memdev *m)
{
  return &m->base;
}

Memdev *
memdev_from_component (Component *c)
{
  return c != NULL && c->kind == &memdev_kind ? (Memdev *) c : NULL;
}
