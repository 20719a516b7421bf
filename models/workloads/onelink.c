/* onelink.c — the smallest fabric, one root complex, one link, one endpoint: the system every config without a
 * topology describes, and the AN-456 and PIO benchmarks run on it (contract in system.h). Its builder is shared with
 * the microbenchmarks, so the one-link system is built in one place. */
#include "models/workloads/pio.h"

/* The one-link system's BAR0: 256 MB, as AN-456's. */
#define BAR0_BYTES 0x10000000ull

/* A DMA transfer moves whole DWs; a PIO transfer any number of bytes (pio_params_check). */
gboolean
system_mode_check (const SystemParams *p, SystemMode mode, GError **error)
{
  gboolean pio = mode == SYSTEM_PIO_READ || mode == SYSTEM_PIO_WRITE;
  if (!link_params_validate (&p->link, error) || !host_params_check (&p->host, p->link.max_payload_bytes, error)
      || !app_params_check (&p->app, error) || !dma_params_check (&p->dma, error)
      || (p->cpu.wc.buffers != 0 && !cpu_params_check (&p->cpu, error))
      || (pio && !pio_params_check (p, mode == SYSTEM_PIO_WRITE, error))
      || (!pio && !system_transfer_check (&p->dma, &p->link, p->transfer_bytes, error)))
    return FALSE;
  if (p->iterations == 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "iterations must be at least 1");
    return FALSE;
  }
  return TRUE;
}

gboolean
system_params_check (const SystemParams *p, GError **error)
{
  return system_mode_check (p, SYSTEM_READ, error);
}

void
system_endpoint_params (const SystemParams *p, SystemMode mode, EndpointParams *ep)
{
  *ep = (EndpointParams) { .app = p->app, .has_dma = TRUE, .dma = p->dma, .rcb_bytes = ENDPOINT_RCB_BYTES,
                           .mem_read_latency_cycles = p->bar_read_latency_cycles,
                           .bars = { { .size_bytes = BAR0_BYTES } } };
  /* The PIO benchmark's memory: BAR1, a power of two that holds the transfer (at least a page). */
  if (mode == SYSTEM_PIO_READ || mode == SYSTEM_PIO_WRITE) {
    uint64_t bar1 = 4096;
    while (bar1 < p->transfer_bytes)
      bar1 *= 2;
    ep->bars[1].size_bytes = bar1;
  }
}

Fabric *
system_one_link (uint64_t seed, const HostParams *hp, const EndpointParams *ep, const LinkParams *lp, Host **host,
  Endpoint **endpoint, Link **link, GError **error)
{
  Fabric *f = fabric_new (seed);
  *host = host_new (f, "host", hp, 1);
  *endpoint = endpoint_new (f, "endpoint", ep);
  *link = fabric_connect (f, host_component (*host), 0, endpoint_component (*endpoint), 0, lp, error);
  if (*link == NULL || !fabric_enumerate (f, error)) {
    fabric_free (f);
    return NULL;
  }
  return f;
}

/* The smallest fabric, as every config describes it. Only the parameters' checks differ from a fabric of the
 * caller's: system_params_check() names the limits of this memory map. */
gboolean
system_run (const SystemParams *p, SystemMode mode, uint64_t seed, SystemResult *out, GError **error)
{
  if (!system_mode_check (p, mode, error))
    return FALSE;
  gboolean pio = mode == SYSTEM_PIO_READ || mode == SYSTEM_PIO_WRITE;
  /* Everything is built afresh for this run and freed at its end: a mode never inherits credits, queues or
   * timers from another, so its figure is the same whether it ran alone or after the others. */
  EndpointParams ep;
  system_endpoint_params (p, mode, &ep);
  Host *host;
  Endpoint *e;
  Link *link;
  Fabric *f = system_one_link (seed, &p->host, &ep, &p->link, &host, &e, &link, error);
  gboolean ok = f != NULL;
  if (ok) {
    if (p->host_fault != HOST_FAULT_NONE)
      host_inject_fault (host, p->host_fault, p->host_fault_at);
    if (p->link_fault != LINK_FAULT_NONE)
      link_inject_fault (link, p->link_fault, p->link_fault_dir, p->link_fault_at);
    SystemWorkload w = { .endpoint = e, .mode = mode, .transfer_bytes = p->transfer_bytes };
    SystemDriver d = { .iterations = p->iterations, .software_timed = p->software_timed,
                       .watchdog_ps = p->watchdog_ps, .cpu = &p->cpu, .trace = p->trace };
    ok = pio ? pio_run (f, host, e, p, mode, &d, out, error) : system_run_fabric (f, host, &w, 1, &d, out, error);
    fabric_free (f);
  }
  return ok;
}
