/* pcie_trace.c — see models/observe/pcie_trace.h for the contract. */
#include "models/observe/pcie_trace.h"

const char *const trace_wire_names[TRACE_WIRE_COUNT] = {
  [TRACE_WIRE_IDLE] = "idle",
  [TRACE_WIRE_MWR] = "MWr",
  [TRACE_WIRE_MRD] = "MRd",
  [TRACE_WIRE_CPLD] = "CplD",
  [TRACE_WIRE_CPL] = "Cpl",
  [TRACE_WIRE_MSI] = "MSI",
  [TRACE_WIRE_ACK] = "Ack",
  [TRACE_WIRE_NAK] = "Nak",
  [TRACE_WIRE_UPDATEFC_P] = "UpdateFC_P",
  [TRACE_WIRE_UPDATEFC_NP] = "UpdateFC_NP",
  [TRACE_WIRE_UPDATEFC_CPL] = "UpdateFC_Cpl",
  [TRACE_WIRE_SKP] = "SKP",
};

const char *const trace_dma_state_names[TRACE_DMA_STATE_COUNT] = {
  [TRACE_DMA_IDLE] = "idle",
  [TRACE_DMA_DESCRIPTOR_FETCH] = "descriptor_fetch",
  [TRACE_DMA_TRANSFER] = "transfer",
  [TRACE_DMA_STATUS_WRITE] = "status_write",
  [TRACE_DMA_INTERRUPT] = "interrupt",
};

const char *const trace_cpu_state_names[TRACE_CPU_STATE_COUNT] = {
  [TRACE_CPU_IDLE] = "idle",
  [TRACE_CPU_COMPUTE] = "compute",
  [TRACE_CPU_STORE] = "store",
  [TRACE_CPU_LOAD] = "load",
  [TRACE_CPU_FENCE] = "fence",
  [TRACE_CPU_DRAIN] = "drain",
  [TRACE_CPU_SETUP] = "setup",
  [TRACE_CPU_DESCRIPTORS] = "descriptors",
  [TRACE_CPU_WAIT] = "wait",
  [TRACE_CPU_POLL] = "poll",
  [TRACE_CPU_BARRIER] = "barrier",
  [TRACE_CPU_INTERRUPT] = "interrupt",
  [TRACE_CPU_WAKEUP] = "wakeup",
};

/* Counter widths for the VCD: credits are at most 12-bit fields (spec §3.4.2), replay bytes and tag counts fit
 * 32 bits many times over. */
#define CREDIT_BITS 16
#define WIDE_BITS 32

void
trace_link_dir_declare (SimTrace *t, const char *scope, TraceLinkDir *d)
{
  static const char *const wire_attrs[SIM_TRACE_ATTRS] = { "tag", "length_bytes" };
  static const char *const credit_names[FC_CLASS_COUNT][2] = {
    [FC_P] = { "credits_ph", "credits_pd" },
    [FC_NP] = { "credits_nph", "credits_npd" },
    [FC_CPL] = { "credits_cplh", "credits_cpld" },
  };
  if (t == NULL)
    return;
  d->wire = sim_trace_add_track (t, scope, "wire", trace_wire_names, TRACE_WIRE_COUNT, wire_attrs);
  for (int c = 0; c < FC_CLASS_COUNT; c++)
    for (int p = 0; p < 2; p++)
      d->credits[c][p] = sim_trace_add_counter (t, scope, credit_names[c][p], CREDIT_BITS);
  d->replay_bytes = sim_trace_add_counter (t, scope, "replay_bytes", WIDE_BITS);
}

SimTraceCounter
trace_requester_declare (SimTrace *t, const char *scope)
{
  return t ? sim_trace_add_counter (t, scope, "tags_outstanding", WIDE_BITS) : 0;
}

void
trace_dma_declare (SimTrace *t, const char *scope, TraceDma *d)
{
  static const char *const dma_attrs[SIM_TRACE_ATTRS] = { "descriptor", "bytes" };
  if (t == NULL)
    return;
  d->phase = sim_trace_add_track (t, scope, "phase", trace_dma_state_names, TRACE_DMA_STATE_COUNT, dma_attrs);
  d->fetch = sim_trace_add_track (t, scope, "fetch", trace_dma_state_names, TRACE_DMA_STATE_COUNT, dma_attrs);
}

SimTraceTrack
trace_cpu_declare (SimTrace *t, const char *scope, const char *name, gboolean op)
{
  static const char *const cpu_attrs[SIM_TRACE_ATTRS] = { "op", NULL };
  return t ? sim_trace_add_track (t, scope, name, trace_cpu_state_names, TRACE_CPU_STATE_COUNT,
                                  op ? cpu_attrs : NULL) : 0;
}
