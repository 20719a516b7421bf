/* host_cpu.c — the root complex's side of the CPU's loads and stores (cpu.h): through the chipset's path and the
 * posted-write queue to the root ports (contract in host.h, "The CPU's side"); their completions come back through
 * host.c's receive path.
 *
 * Split from host.c, whose state (host_impl.h) it shares, to keep each file within the size bound (test-layering.c).
 */
#include "models/devices/host_impl.h"

/* --- the CPU's path ------------------------------------------------------------------------------------- */

static void
cpu_queue (Host *h, Tlp *t)
{
  FabricPort *out = fabric_route_address (&h->base, t->address);
  SIM_INVARIANT (out != NULL, "%s: a CPU %s to 0x%" G_GINT64_MODIFIER "x, which no root port's window holds",
                 h->base.name, tlp_kind_name (t->kind), t->address);
  rp_push (h, out->index, t);
  host_tx_drain (h, out->index);
}

static void cpu_fifo_event (SimEngine *e, void *ctx, uint64_t arg);

/* Hand the CPU TLPs that have crossed the chipset's path to their root ports, in order (a load never passes an
 * earlier write, spec §2.4.1); one event waits for the head. Re-entered from host_tx_drain() through the CPU, the
 * inner call moves the head first, so the order holds. */
static void
cpu_fifo_move (Host *h)
{
  SimTime now = sim_now (h->engine);
  while (h->cpu_fifo.head != NULL && h->cpu_fifo.head->stamp_ps <= now)
    cpu_queue (h, tlp_fifo_pop (&h->cpu_fifo));
  if (h->cpu_fifo.head != NULL && !h->cpu_event) {
    h->cpu_event = TRUE;
    sim_schedule_at (h->engine, h->cpu_fifo.head->stamp_ps, cpu_fifo_event, h, 0);
  }
}

static void
cpu_fifo_event (SimEngine *e, void *ctx, uint64_t arg)
{
  Host *h = ctx;
  h->cpu_event = FALSE;
  cpu_fifo_move (h);
}

/* A CPU TLP taken by the root complex: straight to its port without a posted-write queue, else behind the queue. */
static void
cpu_take (Host *h, Tlp *t, SimTime path_ps)
{
  if (h->p.cpu_write_queue_tlps == 0) {
    cpu_queue (h, t);
    return;
  }
  t->stamp_ps = sim_now (h->engine) + path_ps;
  tlp_fifo_push (&h->cpu_fifo, t);
  cpu_fifo_move (h);
}

/* A root port placed a TLP on its wire: a CPU write counts as sent, and the CPU hears when none is left. */
static void
cpu_placed (void *ctx, LinkPort *port, const Tlp *t, SimTime end_ps)
{
  Host *h = ctx;
  if (t->kind != TLP_MWR || t->requester != h->base.id || t->cookie != CPU_WRITE_COOKIE)
    return;
  g_assert (h->cpu_unsent > 0);
  h->cpu_sent_end_ps = MAX (h->cpu_sent_end_ps, end_ps);
  if (--h->cpu_unsent == 0 && h->cpu.sent != NULL)
    h->cpu.sent (h->cpu_ctx);
}

void
host_set_cpu (Host *h, const HostCpuFns *fns, void *ctx)
{
  h->cpu = *fns;
  h->cpu_ctx = ctx;
  for (uint32_t i = 0; i < h->base.n_ports; i++)
    if (h->base.ports[i].link_port != NULL)
      link_port_set_tx_placed (h->base.ports[i].link_port, cpu_placed, h);
}

gboolean
host_cpu_writes_sent (const Host *h, SimTime *end_ps)
{
  *end_ps = h->cpu_sent_end_ps;
  return h->cpu_unsent == 0;
}

/* Without a posted-write queue the write goes out only when the port's FIFO is empty and its link takes it now:
 * whatever holds the link back holds the core (host.h). A probe on the stack asks the link, so a refusal allocates
 * nothing. With one, the write is taken while the queue has room. */
gboolean
host_cpu_write (Host *h, uint64_t address, uint32_t bytes)
{
  FabricPort *out = fabric_route_address (&h->base, address);
  SIM_INVARIANT (out != NULL && bytes > 0 && bytes % 4 == 0 && address % 4 == 0, "%s: a CPU write of %u bytes to "
                 "0x%" G_GINT64_MODIFIER "x, which no root port's window holds as whole DWs", h->base.name, bytes,
                 address);
  Tlp probe = { 0 };
  tlp_set (&probe, TLP_MWR, address > 0xffffffffu, address, bytes);
  uint32_t q = h->p.cpu_write_queue_tlps;
  if (q > 0 ? h->cpu_queued >= q : !rp_empty (&h->rp[out->index]) || !link_port_can_send (out->link_port, &probe)) {
    h->cpu_waiting = TRUE;
    return FALSE;
  }
  Tlp *t = tlp_alloc (h->pool);
  *t = probe;
  t->requester = h->base.id;
  t->cookie = CPU_WRITE_COOKIE;
  h->c.cpu_writes++;
  h->cpu_unsent++;
  h->cpu_queued++;
  cpu_take (h, t, h->cpu_path_ps);
  return TRUE;
}

void
host_cpu_read (Host *h, uint64_t address, uint32_t bytes, uint16_t tag)
{
  SIM_INVARIANT (bytes > 0 && bytes % 4 == 0 && address % 4 == 0, "%s: a CPU load of %u bytes at 0x%"
                 G_GINT64_MODIFIER "x: must be whole DWs", h->base.name, bytes, address);
  Tlp *t = tlp_alloc (h->pool);
  tlp_set (t, TLP_MRD, address > 0xffffffffu, address, bytes);
  t->requester = h->base.id;
  t->tag = tag;
  h->c.cpu_reads++;
  cpu_take (h, t, 0);
}
