/* link_setup.c — a link's parameters, construction and teardown, and its plain accessors. */
#include "models/link/link_impl.h"

#include "models/base/model_error.h"

/* ---- parameters ---- */

gboolean
link_params_validate (const LinkParams *p, GError **error)
{
  Phy phy;
  if (!phy_init_mode (&phy, p->gen, p->lanes, p->flit_mode, p->sris, p->skp_interval_symbols, error))
    return FALSE;
  /* A rate of 1e-2 already corrupts nearly every TLP; beyond it nothing would ever get through. */
  if (!(p->flit_lane_correlation >= 0 && p->flit_lane_correlation <= 1)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flit_lane_correlation %g is not 0..1",
                 p->flit_lane_correlation);
    return FALSE;
  }
  if (!(p->ber >= 0 && p->ber <= 1e-2)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "ber %g is not 0..1e-2", p->ber);
    return FALSE;
  }
  if (p->supported_gen && (p->supported_gen < p->gen || p->supported_gen > 6)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "supported_gen %d is not gen %d..6", p->supported_gen, p->gen);
    return FALSE;
  }
  for (int end = 0; end < 2; end++) {
    SimTime rx = p->end_pipelines[end] ? p->end_rx_pipeline_ps[end] : p->rx_pipeline_ps;
    if (p->rx_tl_pipeline_ps[end] > rx) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "rx_tl_pipeline_ps %" G_GUINT64_FORMAT " exceeds the receive "
                   "pipeline %" G_GUINT64_FORMAT, p->rx_tl_pipeline_ps[end], rx);
      return FALSE;
    }
  }
  uint32_t mps = p->max_payload_bytes;
  /* pcie-protocol.md §6: MPS is a power of two from 128 to 4096 bytes. */
  if (mps < 128 || mps > 4096 || (mps & (mps - 1))) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "max_payload_bytes %u is not 128..4096, power of 2", mps);
    return FALSE;
  }
  /* An interval shorter than two ordered sets (with their block alignment) would leave no room for packets;
   * the spec range is far above it (§4: 1180 symbols, 370 blocks), so anything near it is a typo. */
  uint32_t min_skp = 2 * (phy.skp_symbols + phy.os_align_symbols);
  if (p->skp_interval_symbols && p->skp_interval_symbols < min_skp) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "skp_interval_symbols %u is below %u", p->skp_interval_symbols,
                 min_skp);
    return FALSE;
  }
  if (p->updatefc_period_ps > UPDATEFC_PERIOD_MAX_PS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "updatefc_period_ps %" G_GUINT64_FORMAT " exceeds 30 us",
                 p->updatefc_period_ps);
    return FALSE;
  }
  /* At least one max-payload TLP with a 3-DW header must fit, or the transmitter would stall forever
   * (link_port_can_send() aborts on a bigger TLP that can never fit). */
  uint32_t smallest_full = 12 + mps + phy.tlp_framing_bytes;
  /* Flit mode: the retry buffer in whole flits must cover the flits that TLP's bytes fill (flit.c). */
  if (phy.flit)
    smallest_full = (smallest_full + PHY_FLIT_TLP_BYTES - 1) / PHY_FLIT_TLP_BYTES * PHY_FLIT_BYTES;
  if (p->replay_buffer_bytes && p->replay_buffer_bytes < smallest_full) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "replay_buffer_bytes %u cannot hold one %u-byte TLP",
                 p->replay_buffer_bytes, smallest_full);
    return FALSE;
  }
  return TRUE;
}

/* LinkParams names the six credit types as the config does; fc.c indexes them [class][part] so it can loop. */
static void
credits_matrix (const FcCredits *c, FcAmounts *a)
{
  uint32_t (*m)[2] = a->n;
  m[FC_P][FC_HDR] = c->ph;
  m[FC_P][FC_DATA] = c->pd;
  m[FC_NP][FC_HDR] = c->nph;
  m[FC_NP][FC_DATA] = c->npd;
  m[FC_CPL][FC_HDR] = c->cplh;
  m[FC_CPL][FC_DATA] = c->cpld;
}

Link *
link_new (SimEngine *engine, const LinkParams *params, TlpPool *pool)
{
  g_autoptr (GError) error = NULL;
  if (!link_params_validate (params, &error))
    g_error ("link_new: %s", error->message);
  Link *l = g_new0 (Link, 1);
  l->engine = engine;
  l->p = *params;
  /* The spec's nominal 30 us, the most link_params_validate() accepts: the fewest refresh DLLPs it permits. */
  if (!l->p.updatefc_period_ps)
    l->p.updatefc_period_ps = UPDATEFC_PERIOD_MAX_PS;
  l->pool = pool;
  phy_init_mode (&l->phy, params->gen, params->lanes, params->flit_mode, params->sris, params->skp_interval_symbols,
                 NULL); /* validated above */
  /* REPLAY_TIMER (spec §3.6.2.1, pcie-protocol.md §10): flit mode, 1500 flits with a non-empty retry buffer;
   * non-flit, a port that supports 16 GT/s or more uses the simplified limit at every rate it trains at; one
   * limited to lower rates, 3 × the Ack latency limit (the older tables). The supported rate is the link's
   * unless given (LinkParams.supported_gen). */
  int supported = MAX (l->phy.gen, params->supported_gen);
  l->replay_timer_symbols = params->replay_timer_symbols ? params->replay_timer_symbols
                            : l->phy.flit      ? 1500 * (PHY_FLIT_BYTES / l->phy.lanes)
                            : supported >= 4 ? LINK_REPLAY_SIMPLIFIED_SYMBOLS
                                               : 3 * phy_ack_limit_symbols (&l->phy, params->max_payload_bytes);
  if (!l->p.retrain_ps)
    l->p.retrain_ps = LINK_RETRAIN_PS_DEFAULT;
  l->window_tlps = l->phy.flit ? UINT64_MAX : LINK_SEQ_WINDOW;
  l->window_bytes = params->replay_buffer_bytes ? params->replay_buffer_bytes : UINT64_MAX;
  /* Flit mode counts flits, not bytes (flit.c): ASSUMPTION, the retry buffer holds whole flits of 256 bytes. */
  if (l->phy.flit) {
    l->window_bytes = UINT64_MAX;
    l->window_flits = MIN (params->replay_buffer_bytes ? params->replay_buffer_bytes / PHY_FLIT_BYTES : UINT32_MAX,
                           LINK_FLIT_WINDOW);
  }
  if (params->ber > 0) {
    l->errors = TRUE;
    l->log_q = log1p (-params->ber);
    /* A flit is lost when FEC cannot correct it; a non-flit DLLP (8 bytes, §3) when any line bit is wrong (10 per
     * byte at 8b/10b), of which at 128b/130b the SDP token's 2 are a framing error (link_errors.c), not a CRC's. */
    l->bits_per_byte = l->phy.gen <= 2 ? 10.0 : 8.0;
    l->recovery_bytes = (double) (phy_sym_at_or_after (&l->phy, l->p.retrain_ps) * l->phy.lanes);
    l->p_flit_bad = phy_flit_error_prob (&l->phy, params->ber, params->flit_lane_correlation);
    l->p_dllp_bad = l->phy.flit ? l->p_flit_bad : -expm1 ((l->phy.gen <= 2 ? 80.0 : 48.0) * l->log_q);
  }
  l->ack_limit_symbols = phy_ack_limit_symbols (&l->phy, params->max_payload_bytes);
  /* The spec's recommended UpdateFC latency (Table 2-54) has the same values as the Ack latency limit. */
  for (int end = 0; end < 2; end++) {
    uint32_t u = params->end_updatefc[end] ? params->end_updatefc_latency_symbols[end] : params->updatefc_latency_symbols;
    l->updatefc_latency_symbols[end] = u == LINK_UPDATEFC_LATENCY_RECOMMENDED ? l->ack_limit_symbols : u;
  }
  /* One constant for every packet of a direction: arrivals keep wire order, which the single arrival event of each
   * direction relies on (top of file). */
  for (int end = 0; end < 2; end++) {
    l->tx_pipe_ps[end] = params->end_pipelines[end] ? params->end_tx_pipeline_ps[end] : params->tx_pipeline_ps;
    l->rx_pipe_ps[end] = params->end_pipelines[end] ? params->end_rx_pipeline_ps[end] : params->rx_pipeline_ps;
    /* The link's arrivals are at the data link layer; a TLP waits the transaction layer's part after it. */
    l->tl_pipe_ps[end] = MIN (params->rx_tl_pipeline_ps[end], l->rx_pipe_ps[end]);
    l->rx_pipe_ps[end] -= l->tl_pipe_ps[end];
    /* The end's Ack must leave its pins one Ack latency limit after a TLP arrived there (spec §3.6.3.1), and it is
     * scheduled only once the TLP is checked: the check sits at most the limit less the transmit pipeline behind
     * the pins, and what the receive pipeline has beyond that is the transaction layer's. */
    SimTime limit = phy_sym_ps (&l->phy, l->ack_limit_symbols);
    SimTime room = limit > l->tx_pipe_ps[end] ? limit - l->tx_pipe_ps[end] : 0;
    if (l->rx_pipe_ps[end] > room) {
      l->tl_pipe_ps[end] += l->rx_pipe_ps[end] - room;
      l->rx_pipe_ps[end] = room;
    }
  }
  /* Direction d is sent by LinkEnd d and received at the end that does not transmit on it: LinkEnd 1 - d. */
  for (int dir = 0; dir < 2; dir++) {
    l->latency_ps[dir] = l->tx_pipe_ps[dir] + params->flight_ps + l->rx_pipe_ps[1 - dir];
    l->ack_timer[dir] = params->ack_every_tlps[1 - dir] != 1;
  }
  FcPolicy policy = {
    .mps_data_credits = params->max_payload_bytes / 16, /* spec §2.6.1: 16 bytes per data credit */
    .hdr_threshold_credits = params->updatefc_hdr_threshold_credits,
    .data_threshold_credits = params->updatefc_data_threshold_credits,
  };
  for (int i = 0; i < 2; i++) {
    Dir *d = &l->d[i];
    d->link = l;
    d->dir = (LinkDir) i;
    d->wire_ev = d->arr_ev = d->ack_ev = d->tlq_ev = SIM_EVENT_NONE;
    for (int c = 0; c < FC_CLASS_COUNT; c++)
      d->fc_timer[c] = d->fc_lat_timer[c] = SIM_EVENT_NONE;
    /* The first SKP falls one interval after link-up, like every later one. Flit mode has them in its grid. */
    d->skp_due_sym = l->phy.flit ? UINT64_MAX : l->phy.skp_interval_symbols;
    d->flit = l->phy.flit;
    d->errors = l->errors;
    d->replay_ev = SIM_EVENT_NONE;
    if (l->errors)
      d->rand = sim_rand_new (engine, LINK_RAND_ID (params->rand_index, i));
    /* Upstream TLPs land in the DSP's receiver, downstream ones in the USP's. */
    FcAmounts m;
    credits_matrix (&params->rx_credits[1 - i], &m);
    fc_tx_init (&d->fc_tx, &m);
    fc_rx_init (&d->fc_rx, &m, &policy);
    l->port[i] = (LinkPort) { .link = l, .end = (LinkEnd) i, .tx = d, .rx = &l->d[1 - i] };
    d->opp = &l->d[1 - i];
    d->tx_port = &l->port[i];
    d->rx_port = &l->port[1 - i];
    /* Idle for what the sender waits for until the link refuses something; no sender yet: nothing to send. */
    d->stall.follow = true;
  }
  return l;
}

void
link_free (Link *link)
{
  if (!link)
    return;
  for (int i = 0; i < 2; i++) {
    Dir *d = &link->d[i];
    sim_cancel (link->engine, d->wire_ev);
    sim_cancel (link->engine, d->arr_ev);
    sim_cancel (link->engine, d->ack_ev);
    for (int c = 0; c < FC_CLASS_COUNT; c++) {
      sim_cancel (link->engine, d->fc_timer[c]);
      sim_cancel (link->engine, d->fc_lat_timer[c]);
    }
    /* TLPs still owned by the link go back to the pool so its leak count stays meaningful. */
    for (Tlp *t; (t = tlp_fifo_pop (&d->q)) != NULL;)
      tlp_free (link->pool, t);
    for (uint32_t k = 0; k < d->arr_len; k++) {
      Arrival *a = &d->arr[(d->arr_head + k) & (d->arr_cap - 1)];
      if (a->kind == ARR_TLP)
        tlp_free (link->pool, a->tlp);
    }
    sim_cancel (link->engine, d->replay_ev);
    sim_cancel (link->engine, d->tlq_ev);
    for (uint32_t k = 0; k < d->tlq_len; k++)
      tlp_free (link->pool, d->tlq[(d->tlq_head + k) & (d->tlq_cap - 1)].tlp);
    g_free (d->tlq);
    if (d->rtlp)
      for (uint64_t k = 0; k < d->tx_seq - d->acked_seq; k++)
        tlp_free (link->pool, d->rtlp[(d->replay_head + k) & (d->replay_cap - 1)]);
    if (d->rand)
      g_rand_free (d->rand);
    g_free (d->rtlp);
    g_free (d->rpin);
    g_free (d->rflit);
    g_free (d->rlast);
    g_free (d->rlost);
    g_free (d->rat);
    g_free (d->arr);
    g_free (d->replay);
  }
  if (link->flows)
    g_hash_table_destroy (link->flows);
  g_free (link);
}

LinkPort *
link_port (Link *link, LinkEnd end)
{
  return &link->port[end];
}

TlpPool *
link_pool (Link *link)
{
  return link->pool;
}

const LinkParams *
link_params (const Link *link)
{
  return &link->p;
}

void
link_port_set_rx (LinkPort *port, LinkRxFn fn, void *ctx)
{
  port->rx_fn = fn;
  port->rx_ctx = ctx;
}

void
link_port_set_tx_ready (LinkPort *port, LinkTxReadyFn fn, void *ctx)
{
  port->ready_fn = fn;
  port->ready_ctx = ctx;
}

void
link_port_set_rx_at_header (LinkPort *port, gboolean on)
{
  port->at_header = on;
}

void
link_port_set_forwarding (LinkPort *port, gboolean on)
{
  port->forwards = on;
}

void
link_port_set_refusals_stand (LinkPort *port, SimTime until)
{
  port->stands_until = until;
}

SimTime
link_port_rx_tail_ps (const LinkPort *port)
{
  return port->rx_tail_ps;
}

void
link_port_set_tx_placed (LinkPort *port, LinkTxPlacedFn fn, void *ctx)
{
  port->placed_fn = fn;
  port->placed_ctx = ctx;
}

LinkEnd
link_port_end (const LinkPort *port)
{
  return port->end;
}

uint32_t
link_ack_limit_symbols (const Link *link)
{
  return link->ack_limit_symbols;
}

SimTime
link_symbol_ps (const Link *link, uint64_t n)
{
  return phy_sym_ps (&link->phy, n);
}
