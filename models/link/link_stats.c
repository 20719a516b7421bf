/* link_stats.c — what a link reports: its accounting window, counters, end-of-run invariants, what it waits for,
 * why it is idle (stall.h) and its credits over time (its trace: link_trace.c). */
#include "models/link/link_impl.h"

#include "models/base/model_error.h"

/* ---- accounting ---- */

void
link_stats_reset (Link *link)
{
  const Phy *phy = &link->phy;
  uint64_t now_sym = phy_sym_at_or_after (phy, sim_now (link->engine));
  for (int i = 0; i < 2; i++) {
    Dir *d = &link->d[i];
    /* SKPs that fell due on an idle wire belong before the window: place them now, not retroactively later. */
    skp_catch_up (d, now_sym);
    /* The window starts after whatever is already committed to the wire, so no packet is split by it. */
    d->win_start_slot = MAX (d->cursor, now_sym * phy->lanes);
    d->s_payload = d->s_overhead = d->s_dllp = d->s_os = 0;
    d->cnt = (LinkCounters) { 0 };
  }
}

/* Fractions of lane-slots rather than of picoseconds: every slot lasts the same time (the 128b/130b sync bits
 * are spread evenly, phy.h), so the two are equal, and integers keep the sum exact until the final division. */
LinkUsage
link_usage (const Link *link, LinkDir dir)
{
  const Phy *phy = &link->phy;
  const Dir *d = &link->d[dir];
  uint64_t now_slot = phy_sym_at_or_after (phy, sim_now (link->engine)) * phy->lanes;
  uint64_t end = MAX (d->cursor, now_slot);
  if (phy->flit && d->charged_flit)
    end = MAX (end, phy_flit_start (phy, d->charged_flit - 1) + PHY_FLIT_BYTES); /* charged overhead included */
  uint64_t os = d->s_os;
  if (phy->flit)
    os += phy_flit_skps_between (phy, d->win_start_slot, end) * phy->skp_symbols * phy->lanes;
  /* SKPs that went out on an idle wire since the last packet are placed lazily (skp_catch_up); count them. */
  uint64_t pos = d->cursor, os_len = (uint64_t) phy->skp_symbols * phy->lanes + phy->eds_bytes;
  for (uint64_t due = d->skp_due_sym; !phy->flit && due * phy->lanes < end; due += phy->skp_interval_symbols) {
    pos = MAX (pos, due * phy->lanes) + os_len;
    if (pos > end)
      break;
    os += os_len;
  }
  LinkUsage u = { 0 };
  if (end <= d->win_start_slot) {
    u.idle = 1.0;
    return u;
  }
  double total = (double) (end - d->win_start_slot);
  uint64_t busy = d->s_payload + d->s_overhead + d->s_dllp + os;
  g_assert (busy <= end - d->win_start_slot);
  u.payload = (double) d->s_payload / total;
  u.tlp_overhead = (double) d->s_overhead / total;
  u.dllp = (double) d->s_dllp / total;
  u.ordered_sets = (double) os / total;
  /* Padding and logical idle are whatever the packets did not use; derived so the fractions sum to 1. */
  u.idle = 1.0 - (u.payload + u.tlp_overhead + u.dllp + u.ordered_sets);
  return u;
}

LinkCounters
link_counters (const Link *link, LinkDir dir)
{
  return link->d[dir].cnt;
}

/* For the end of a finished run. With no bit errors every TLP must have been delivered and acknowledged, so
 * anything left in a queue, in flight or in a replay buffer, and any credit count out of range, is a model bug. */
gboolean
link_check_invariants (const Link *link, GError **error)
{
  static const char *const dir_name[2] = { "downstream", "upstream" };
  for (int i = 0; i < 2; i++) {
    const Dir *d = &link->d[i];
    const char *n = dir_name[i];
    if (d->q_len || d->arr_len) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: %u TLPs queued, %u packets in flight", n, d->q_len,
                   d->arr_len);
      return FALSE;
    }
    if (d->acked_seq != d->tx_seq || d->replay_bytes) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                   " TLPs never acknowledged", n, d->tx_seq - d->acked_seq, d->tx_seq);
      return FALSE;
    }
    for (int c = 0; c < FC_CLASS_COUNT; c++)
      for (int p = 0; p < 2; p++) {
        if (!d->fc_tx.infinite[c][p] && d->fc_tx.consumed[c][p] > d->fc_tx.limit[c][p]) {
          g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: class %d part %d consumed beyond limit", n, c,
                       p);
          return FALSE;
        }
        if (d->fc_rx.freed[c][p] > d->fc_rx.received[c][p]
            || (!d->fc_rx.infinite[c][p] && fc_rx_occupied (&d->fc_rx, c, p) > d->fc_rx.advertised[c][p])) {
          g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: class %d part %d receive credits out of range",
                       n, c, p);
          return FALSE;
        }
      }
  }
  return TRUE;
}

void
link_describe_wait (const Link *link, GString *out)
{
  static const char *const dir_name[2] = { "downstream", "upstream" };
  static const char *const class_name[FC_CLASS_COUNT] = { "P", "NP", "Cpl" };
  for (int i = 0; i < 2; i++) {
    const Dir *d = &link->d[i];
    const LinkPort *sender = &link->port[i];
    uint64_t unacked = d->tx_seq - d->acked_seq;
    if (!sender->want_ready && d->q_len == 0 && unacked == 0)
      continue;
    g_string_append_printf (out, "%slink %s: %s, %u TLPs queued", out->len ? "; " : "", dir_name[i],
                            sender->want_ready ? "sender blocked" : "sender not blocked", d->q_len);
    if (link->p.tx_queue_tlps)
      g_string_append_printf (out, " (limit %u)", link->p.tx_queue_tlps);
    g_string_append_printf (out, ", %" G_GUINT64_FORMAT " unacknowledged", unacked);
    if (link->p.replay_buffer_bytes)
      g_string_append_printf (out, ", replay buffer %" G_GUINT64_FORMAT " of %u bytes",
                              d->replay_bytes + d->q_bytes, link->p.replay_buffer_bytes);
    /* With errors a stall may sit in recovery: a replay under way, a retrain holding the wire. */
    if (link->errors && d->replay_pos < unacked)
      g_string_append_printf (out, ", replaying (%u of %" G_GUINT64_FORMAT " resent, REPLAY_NUM %u)", d->replay_pos,
                              unacked, d->replay_num);
    if (link->errors && d->retrain_end_slot > phy_sym_at_or_after (&link->phy, sim_now (link->engine)) * link->phy.lanes)
      g_string_append (out, ", retraining");
    /* Credits left per finite type: a 0 here next to a blocked sender is the usual deadlock. */
    for (int c = 0; c < FC_CLASS_COUNT; c++)
      for (int p = 0; p < 2; p++)
        if (!d->fc_tx.infinite[c][p])
          g_string_append_printf (out, ", %s%s credits %" G_GUINT64_FORMAT " of %u", class_name[c],
                                  p == FC_HDR ? "H" : "D", fc_tx_available (&d->fc_tx, c, p),
                                  d->fc_rx.advertised[c][p]);
  }
}

/* ---- why and traces: the port API ---- */

StallClock *
link_stall_clock (Link *link, LinkDir dir)
{
  return &link->d[dir].stall;
}

StallCause
link_port_refused (const LinkPort *port)
{
  return (StallCause) port->refused_why;
}

void
link_port_set_stall_feeder (LinkPort *port, StallClock *feeder, StallClock *refine)
{
  StallClock *c = &port->link->d[port->end].stall;
  if (feeder != NULL)
    stall_link (feeder, c);
  if (refine != NULL)
    stall_refine (refine, c);
}

LinkCreditStats
link_credit_stats (Link *link, LinkDir dir)
{
  Dir *d = &link->d[dir];
  LinkCreditStats s = { 0 };
  SimTime now = sim_now (link->engine);
  for (int c = 0; c < FC_CLASS_COUNT; c++) {
    fc_hold (d, (FcClass) c, now);
    for (int p = 0; p < 2; p++) {
      s.consumed[c][p] = d->fc_tx.consumed[c][p];
      s.held_ps[c][p] = d->fc_area[c][p];
      s.advertised[c][p] = d->fc_tx.infinite[c][p] ? 0 : d->fc_rx.advertised[c][p];
    }
  }
  return s;
}

void
link_port_set_rx_observer (LinkPort *port, LinkRxObserverFn fn, void *ctx)
{
  port->observe_fn = fn;
  port->observe_ctx = ctx;
}

void
link_trace_declare (Link *link, SimTrace *trace, const char *name)
{
  if (trace == NULL)
    return;
  static const char *const dir_name[2] = { "down", "up" };
  for (int i = 0; i < 2; i++) {
    g_autofree char *scope = g_strdup_printf ("%s.%s", name, dir_name[i]);
    trace_link_dir_declare (trace, scope, &link->d[i].tr);
  }
  link->trace = trace;
  link->flows = g_hash_table_new (g_direct_hash, g_direct_equal);
}
