/* run.c — the run harness (contract in run.h).
 *
 * Written once for every workload: the watchdog, the deadlock message, the settle, the end-of-run checks and the
 * memory ledger were four copies before (the DMA driver, the PIO program, the flows, the stream), which drifted
 * apart in their messages and in what they checked. */
#include "models/fabric/run.h"

struct RunLedger {
  GPtrArray *mem; /* RunMemory, in the order added (each its own allocation, so a pointer stays valid) */
};

struct RunCtx {
  Fabric *f;
  SimEngine *engine;
  const RunWorkload *w;
  void *self;
  gboolean finished, stalled;
  SimTime watchdog_ps;
  uint64_t last_progress, ticks;
  SimEventId tick;
};

RunStats
run_stats (const RunCtx *run)
{
  return (RunStats) { sim_events_executed (run->engine), run->ticks, fabric_tlps_delivered (run->f),
                      tlp_pool_capacity (fabric_pool (run->f)) };
}

void
run_finished (RunCtx *run)
{
  run->finished = TRUE;
  sim_stop (run->engine);
}

static uint64_t
progress (const RunCtx *run)
{
  return fabric_progress (run->f) + (run->w->progress ? run->w->progress (run->self) : 0);
}

/* Polled (run.h). The sign of life is every component's progress count and the workload's own. */
static void
watchdog (SimEngine *e, void *ctx, uint64_t arg)
{
  RunCtx *run = ctx;
  run->ticks++;
  uint64_t now = progress (run);
  if (run->w->owed (run->self) && now == run->last_progress) {
    run->stalled = TRUE;
    sim_stop (e);
    return;
  }
  run->last_progress = now;
  run->tick = sim_schedule_in (e, run->watchdog_ps, watchdog, run, 0);
}

/* The message is the debugging aid: each component names what it holds or waits for (credits of which type,
 * tags, replay space), so a model bug shows as its mechanism rather than as a hang or a low figure. */
static void
deadlock_error (const RunCtx *run, GError **error)
{
  g_autofree char *how = run->stalled
    ? g_strdup_printf ("nothing delivered for %.3f us", (double) run->watchdog_ps / 1e6)
    : g_strdup (sim_pending (run->engine) ? "not finished within the time budget" : "no event left to run");
  g_autoptr (GString) where = g_string_new (NULL);
  run->w->where (run->self, where);
  g_autoptr (GString) why = g_string_new (NULL);
  fabric_describe_wait (run->f, why);
  if (run->w->describe_wait)
    run->w->describe_wait (run->self, why);
  g_set_error (error, MODEL_ERROR, MODEL_ERROR_DEADLOCK, "deadlock in %s, t = %.3f us: %s; waiting: %s", where->str,
               (double) sim_now (run->engine) / 1e6, how,
               why->len ? why->str : "nothing (software never heard of the end)");
}

gboolean
run_integrity_error (GError **error, const char *where, const char *what, uint64_t got, uint64_t want)
{
  g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "data integrity: checksum mismatch (%s %s %016"
               G_GINT64_MODIFIER "x, expected %016" G_GINT64_MODIFIER "x): data was dropped, duplicated or misplaced",
               where, what, got, want);
  return FALSE;
}

RunMemory *
run_ledger_at (RunLedger *ledger, const Component *c, gboolean want_bytes)
{
  for (guint i = 0; i < ledger->mem->len; i++) {
    RunMemory *m = g_ptr_array_index (ledger->mem, i);
    if (m->c == c)
      return m;
  }
  RunMemory *m = g_new0 (RunMemory, 1);
  *m = (RunMemory) { .c = c, .want_bytes = want_bytes };
  g_ptr_array_add (ledger->mem, m);
  return m;
}

/* Byte counts alone would pass a completion sent to the wrong address, or one duplicated while another was
 * dropped; the address pattern catches both. What each memory sent and what it took in are checked apart, so a
 * mismatch says at which end the data went wrong. */
static gboolean
ledger_check (const RunLedger *ledger, GError **error)
{
  for (guint i = 0; i < ledger->mem->len; i++) {
    const RunMemory *w = g_ptr_array_index (ledger->mem, i);
    FabricMemory m;
    if (!fabric_memory (w->c, &m)) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s has no memory to check", w->c->name);
      return FALSE;
    }
    if (w->want_bytes && (m.cpl_bytes != w->cpl_bytes || m.bytes_written != w->mem_bytes)) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "bytes moved do not add up: %s's memory completed %"
                   G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes and took in %" G_GUINT64_FORMAT " of %"
                   G_GUINT64_FORMAT, w->c->name, m.cpl_bytes, w->cpl_bytes, m.bytes_written, w->mem_bytes);
      return FALSE;
    }
    if (m.cpl_checksum != w->cpl_sum)
      return run_integrity_error (error, w->c->name, "completions sent", m.cpl_checksum, w->cpl_sum);
    if (m.write_checksum != w->mem_sum)
      return run_integrity_error (error, w->c->name, "memory", m.write_checksum, w->mem_sum);
  }
  return TRUE;
}

/* The components' own checks come first, because their messages name the broken mechanism; the workload's byte
 * totals and the ledger then catch what no single component can see, such as data that left one end and arrived
 * at the other in a different amount or place. */
static gboolean
check (RunCtx *run, GError **error)
{
  if (!fabric_check_invariants (run->f, error))
    return FALSE;
  /* sim_schedule_at() already aborts on a past time; this is the end-of-run statement of the same invariant
   * (docs, "Invariants"), independent of how the engine is built. */
  if (sim_next_time (run->engine) < sim_now (run->engine)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "an event is scheduled at %" G_GUINT64_FORMAT " ps, before "
                 "now (%" G_GUINT64_FORMAT " ps)", sim_next_time (run->engine), sim_now (run->engine));
    return FALSE;
  }
  RunLedger ledger = { g_ptr_array_new_with_free_func (g_free) };
  gboolean ok = (run->w->check == NULL || run->w->check (run->self, &ledger, error)) && ledger_check (&ledger, error);
  g_ptr_array_unref (ledger.mem);
  if (ok && tlp_pool_live (fabric_pool (run->f)) != 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%zu TLPs not returned to the pool",
                 tlp_pool_live (fabric_pool (run->f)));
    ok = FALSE;
  }
  return ok;
}

gboolean
run_go (Fabric *f, const RunWorkload *w, void *self, SimTime watchdog_ps, GError **error)
{
  RunCtx run = { .f = f, .engine = fabric_engine (f), .w = w, .self = self };
  SimTime budget = w->budget_ps (self);
  w->start (self, &run);
  /* The bound is the configured quiet time plus the workload's longest legal one, so a slow host never reads as a
   * deadlock however the watchdog is set. */
  run.watchdog_ps = (watchdog_ps ? watchdog_ps : RUN_WATCHDOG_DEFAULT_PS) + w->quiet_ps (self);
  run.tick = sim_schedule_in (run.engine, run.watchdog_ps, watchdog, &run, 0);
  sim_run_until (run.engine, budget);
  gboolean ok = run.finished;
  if (!ok)
    deadlock_error (&run, error);
  else if (w->drain) {
    /* The link arms its timers only on traffic (link.c), so without the watchdog's ticks the engine runs dry once
     * the last Acks and UpdateFCs are out; the bound is the settle's. */
    sim_cancel (run.engine, run.tick);
    sim_run_until (run.engine, sim_now (run.engine) + 1000 * SIM_MS);
    ok = check (&run, error);
  } else {
    /* Many Ack and UpdateFC periods (each <= 30 us), so the links' end-of-run checks see them quiet. A slow link
     * can still hold a backlog when the work ends (Gen1 x1 in flit mode with an Ack per TLP: a flit per Ack, a
     * microsecond each, queued behind the completions), so the settle goes on, 200 us at a time, while a link is
     * not yet quiet, up to a simulated second; the periodic UpdateFCs never let the engine run dry. */
    for (int step = 0; step < 5000; step++) {
      sim_run_until (run.engine, sim_now (run.engine) + 200 * SIM_US);
      if (fabric_check_invariants (f, NULL))
        break;
    }
    ok = check (&run, error);
  }
  w->result (self, &run, ok);
  return ok;
}

void
run_usage_add (RunUsage *u, Link *link, double win)
{
  u->ps += win;
  u->windows++;
  for (int d = 0; d < 2; d++) {
    LinkUsage l = link_usage (link, (LinkDir) d);
    u->sum[d].payload += l.payload * win;
    u->sum[d].tlp_overhead += l.tlp_overhead * win;
    u->sum[d].dllp += l.dllp * win;
    u->sum[d].ordered_sets += l.ordered_sets * win;
    u->sum[d].idle += l.idle * win;
    LinkCounters c = link_counters (link, (LinkDir) d), *cs = &u->counters[d];
    cs->tlps += c.tlps;
    cs->dllps += c.dllps;
    cs->acks += c.acks;
    cs->updatefcs += c.updatefcs;
    cs->skps += c.skps;
    cs->payload_bytes += c.payload_bytes;
  }
}

void
run_usage_result (const RunUsage *u, LinkUsage out[2])
{
  double win = u->ps > 0 ? u->ps : 1;
  for (int d = 0; d < 2; d++) {
    const LinkUsage *s = &u->sum[d];
    out[d] = (LinkUsage) { s->payload / win, s->tlp_overhead / win, s->dllp / win, s->ordered_sets / win,
                           s->idle / win };
    /* Idle absorbs the rounding of the weighted sums, so the five still sum to 1. */
    out[d].idle = 1.0 - (out[d].payload + out[d].tlp_overhead + out[d].dllp + out[d].ordered_sets);
  }
}
