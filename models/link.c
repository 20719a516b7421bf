/* link.c — a full-duplex link: per direction a serialiser (transmitter) and a receiver, plus the data link
 * layer (sequence numbers, replay buffer, coalesced Acks) and flow control (fc.c) on top of the PHY (phy.c).
 *
 * Events. Each direction has at most one "wire" event (the serialiser becomes free, or something became ready
 * while it was idle) and one "arrival" event (the head of a FIFO of packets in flight: every packet on one
 * direction sees the same latency, so arrivals are in order and one event suffices; in flit mode a DLLP may
 * overtake a long TLP and is sorted in, arr_push()). Ack timers and periodic
 * UpdateFC timers add a few events per Ack latency limit and per 30 us. Nothing allocates per packet: TLPs come
 * from the pool, the in-flight FIFO and the replay ring grow by doubling and are then reused.
 *
 * Transmit priority (pcie-protocol.md §3, Mindshare p. 350): the packet in progress finishes; then ordered sets
 * (SKP), Nak, Ack, UpdateFC, replayed TLPs, new TLPs. In flit mode DLLPs skip the serialiser: they ride in the
 * DLP bytes of the next flits (flit_dllps()), and the flit grid places SKPs, so the wire carries TLPs only.
 *
 * Errors (Link.errors: ber > 0 or an injected error; none of this runs otherwise). The transmitter draws each
 * packet's fate as it places it and marks the Arrival; the receiver's data link layer acts on it at delivery
 * (dll_accept(): discard, Nak once, Ack a duplicate), the transmitter keeps the TLPs themselves in its replay
 * ring and resends every unacknowledged one on a Nak or a REPLAY_TIMER expiry; the fourth replay without
 * progress retrains the link (retrain()). The receiver decides at delivery rather than at its pins, so a Nak
 * leaves one receive pipeline late: the one approximation of the error path.
 *
 * Pipelines. tx_pipeline_ps is applied between the serialiser and the channel (together with flight and the
 * receiver's rx_pipeline_ps) rather than before the serialiser: a constant-latency pipeline gives the same
 * arrival times either way, and this way the transmit queue holds only TLPs really waiting for the wire.
 * DLLPs pass through the same pipelines as TLPs. Each end has its own pair (LinkParams.end_pipelines), so a
 * direction's latency is its transmitter's transmit pipeline, flight and its receiver's receive pipeline.
 *
 * Cut-through delivery (link_port_set_rx_at_header): a TLP's Arrival is due when its header is in, and its `b`
 * holds when the whole TLP is: what the receiver's data link layer acknowledges by (ack_count()), and what the
 * receiver is told. Arrivals stay in time order: a header is in before its TLP's tail, and the packet after it
 * starts after that tail.
 *
 * Cost. Every packet of every run takes the transmit and arrival paths, so they are kept to what a link without
 * flit mode, errors or a trace needs: the work of those modes sits in functions kept out of line
 * (G_GNUC_NO_INLINE), behind one flag test each, so it neither runs nor widens the hot functions' register
 * saves and stack frames (issue #28: the modes added since round one cost the plain link about a fifth).
 *
 * Not modelled (links start trained): InitFC exchange, the 12-bit modular sequence and credit fields (absolute
 * counters are used instead, with the 2048-TLP window enforced), flit replay as flits (a lost flit's TLPs are
 * replayed as TLPs).
 * Known approximation: a packet that becomes ready exactly as the previous one ends mid-symbol (x8/x16) is
 * placed back to back in the same symbol, although its decision instant is up to half a symbol late.
 */
#include "models/link.h"

#include <math.h>

#include "models/fc.h"
#include "models/phy.h"
#include "models/trace.h"

G_DEFINE_QUARK (pciesim-link-error-quark, link_error)

/* Spec §3.6.2.1 (pcie-protocol.md §10): NEXT_TRANSMIT_SEQ - ACKD_SEQ stays below 2048. */
#define LINK_SEQ_WINDOW 2048u
/* ASSUMPTION: flit mode numbers flits with 10 bits and, by the same half-the-space rule, keeps at most 512 flits
 * unacknowledged; the model counts them as the unacknowledged and queued TLP bytes over 236 per flit. */
#define LINK_FLIT_WINDOW 512u
/* Spec §3.6.2.1 (pcie-protocol.md §10): the simplified REPLAY_TIMER limit, required in non-flit mode of a port
 * that supports 16 GT/s or more, is 24,000 to 31,000 symbol times (Extended Synch clear). Where in the range a
 * port sits is its designer's choice (ASSUMPTION): the low end, the soonest a compliant port may replay. */
#define LINK_REPLAY_SIMPLIFIED_SYMBOLS 24000u
/* Spec §2.6.1.2 (pcie-protocol.md §3): every finite credit type is refreshed at least every 30 us. */
#define UPDATEFC_PERIOD_MAX_PS (30 * SIM_US)

typedef enum { ARR_TLP, ARR_ACK, ARR_NAK, ARR_UPDATEFC } ArrivalKind;

/* A packet on its way to the far side. DLLPs carry absolute counts, not the spec's modular fields, so a later one
 * always supersedes an earlier one and nothing needs wrap handling. */
typedef struct {
  SimTime at; /* the far side has it: end of its last symbol time + tx pipeline + flight + rx pipeline */
  uint8_t kind; /* ArrivalKind; bytes rather than enums keep the FIFO entry at 40 bytes */
  uint8_t cls; /* FcClass */
  bool bad; /* arrives corrupted (error model): LCRC or DLLP CRC fails, or its flit was lost */
  Tlp *tlp;
  /* TLP: sequence count and, delivered at its header (cut-through), when it is in whole (else 0); Ack/Nak: TLPs
   * acknowledged (count); UpdateFC: header and data limits. */
  uint64_t a, b;
} Arrival;

typedef struct Dir Dir;

struct LinkPort {
  Link *link;
  LinkEnd end;
  /* The direction this port transmits on, and the one it receives on: fixed at link_new(), kept here so the calls
   * of every TLP (can_send, send, consume) need no index arithmetic on the link's large Dir array. */
  Dir *tx, *rx;
  LinkRxFn rx_fn;
  void *rx_ctx;
  LinkTxReadyFn ready_fn;
  void *ready_ctx;
  LinkTxPlacedFn placed_fn;
  void *placed_ctx;
  LinkRxObserverFn observe_fn;
  void *observe_ctx;
  uint8_t refused_why; /* StallCause of the last refusal */
  gboolean want_ready; /* can_send said no: call ready_fn on the next relevant change */
  gboolean at_header; /* cut-through delivery (link_port_set_rx_at_header) */
  gboolean forwards; /* sends TLPs others made: adds no ECRC (link_port_set_forwarding) */
  SimTime rx_tail_ps; /* during the rx callback: when the TLP delivered is in whole */
};

/* One direction. Its transmitter is port[dir] (the DSP sends downstream), its receiver port[1 - dir]. */
struct Dir {
  Link *link;
  LinkDir dir;
  /* Copies of the link's mode, beside the hot fields: the error-free non-flit path tests them and nothing else. */
  gboolean flit, errors;
  /* Fixed at link_new(), for the per-packet paths: the opposite direction (whose receiver this one's DLLPs serve),
   * the port that transmits on this direction and the one that receives it. */
  Dir *opp;
  LinkPort *tx_port, *rx_port;

  /* Transmitter: queue, serialiser cursor, sequence numbers, replay buffer, credits of the far receiver. */
  TlpFifo q;
  uint32_t q_len;
  uint64_t q_bytes; /* wire bytes queued, reserved against the replay buffer */
  uint64_t cursor; /* first free slot (phy.h) */
  SimEventId wire_ev;
  SimTime wire_ev_at; /* when wire_ev fires, so wire_kick() can tell whether it is early enough */
  uint64_t skp_due_sym; /* next SKP is scheduled for this symbol time */
  /* Counts since link-up; only their low 12 bits appear on the wire (pcie-protocol.md §2, sequence number). */
  uint64_t tx_seq; /* TLPs given a sequence number so far */
  uint64_t acked_seq; /* of those, acknowledged */
  uint32_t *replay; /* ring of wire bytes per unacknowledged TLP, oldest at replay_head */
  uint32_t replay_cap, replay_head;
  uint64_t replay_bytes; /* sum of the ring, checked against replay_buffer_bytes */
  FcTx fc_tx;
  /* DLLPs this transmitter owes the receiver of the opposite direction. Flags, not a queue: an Ack or UpdateFC
   * reads the latest state when it goes on the wire, so asking twice before it goes adds nothing. */
  gboolean ack_due;
  gboolean fc_due[FC_CLASS_COUNT];
  /* Error model, read on every packet: a Nak owed (before any Ack, §3), and how many unacknowledged TLPs the
   * current replay round has resent. */
  gboolean nak_due;
  uint32_t replay_pos;

  /* Receiver: in-flight FIFO, credits, Ack state. */
  Arrival *arr;
  uint32_t arr_cap, arr_head, arr_len;
  SimEventId arr_ev;
  FcRx fc_rx;
  uint64_t rx_seq; /* TLPs received */
  SimEventId ack_ev; /* Ack latency timer, running while TLPs await an Ack */
  uint32_t rx_unacked; /* TLPs received since the last Ack was scheduled */
  SimEventId fc_timer[FC_CLASS_COUNT]; /* periodic refresh */
  SimEventId fc_lat_timer[FC_CLASS_COUNT]; /* eager UpdateFC latency, running while freed credits are unsent */
  SimTime fc_last_sent_ps[FC_CLASS_COUNT]; /* updatefc_period_ps counts from the last UpdateFC sent */

  /* Accounting window: slot tallies for packets placed since win_start_slot. A slot is one byte on one lane, so
   * these are byte counts too; padding and idle are never tallied, only derived (link_usage()). */
  uint64_t win_start_slot;
  uint64_t s_payload, s_overhead, s_dllp, s_os;
  LinkCounters cnt;

  /* Why the wire is idle (stall.h): the link's own refusal (credits, replay space, the queue), else its
   * sender's cause. And credits held over time, per class and part (credit x ps, since fc_t): with the credits
   * consumed, Little's law gives their mean round trip. */
  StallClock stall;
  uint64_t fc_area[FC_CLASS_COUNT][2];
  SimTime fc_t[FC_CLASS_COUNT];
  /* Error model (Link.errors only; after the accounting, which every packet touches, and before the trace: a run
   * without errors never reads these lines). Transmitter: the unacknowledged TLPs themselves beside their sizes (a copy
   * goes on the wire, so a replay can send them again), how many of them the current round has sent, REPLAY_NUM
   * and REPLAY_TIMER, a Nak owed. Receiver: NAK_SCHEDULED. */
  Tlp **rtlp;
  uint32_t replay_num;
  SimEventId replay_ev;
  gboolean nak_scheduled;
  GRand *rand;
  uint64_t drawn_flit; /* flit mode: flits up to here have had their error drawn, the last one bad or not */
  gboolean drawn_bad;
  LinkErrors errs;
  /* Flit mode: the next flit whose DLP bytes can take an Ack/Nak, and another DLLP (one of each per flit, §3);
   * the next flit whose overhead is not yet charged to the accounting. */
  uint64_t ack_flit, dllp_flit, charged_flit;
  uint64_t retrain_end_slot; /* nothing goes on the wire before this slot (a retrain) */

  TraceLinkDir tr; /* valid when Link.trace is set */
};

struct Link {
  SimEngine *engine;
  LinkParams p;
  TlpPool *pool;
  Phy phy;
  uint32_t ack_limit_symbols; /* pcie-protocol.md §3; fixed by generation, width and MPS */
  uint32_t updatefc_latency_symbols[2]; /* by receiving LinkEnd, resolved from LinkParams; 0 = off */
  SimTime tx_pipe_ps[2], rx_pipe_ps[2]; /* by LinkEnd */
  SimTime latency_ps[2]; /* by LinkDir, serialiser end -> far side: tx pipeline + flight + rx pipeline */
  /* Per receiving direction: whether TLPs start Ack timers. Not for a receiver that Acks every TLP on delivery
   * when its pipelines fit the Ack limit: its count trigger always comes first, and a timer would only be
   * cancelled. */
  gboolean ack_timer[2];
  /* Error model: on with ber > 0 or an injected error; otherwise none of its code runs and nothing is drawn.
   * Dir.errors copies it. */
  gboolean errors;
  /* What link_port_can_send() compares with: TLPs accepted and unacknowledged (the 2048 window, or none in flit
   * mode) and their wire bytes (the replay buffer, and flit mode's window); UINT64_MAX = no limit. */
  uint64_t window_tlps, window_bytes;
  double log_q; /* log (1 - ber): a packet of n bytes survives with exp (8 n log_q) */
  double p_flit_bad, p_dllp_bad;
  uint32_t replay_timer_symbols;
  uint64_t lcrc_seq; /* link_inject_lcrc */
  uint32_t lcrc_times;
  LinkDir lcrc_dir;
  /* Test hook (link_inject_fault): the fault, the direction it hits and a countdown to the packet it hits. Tested
   * per TLP, so here among the fields every packet reads rather than past the directions. */
  LinkFault fault;
  LinkDir fault_dir;
  uint64_t fault_countdown;
  /* Tracing (link_trace_declare); NULL when off, and then each trace call is one pointer test. Reads in flight
   * by (requester << 16 | tag) -> flow id, so a completion's arrow finds its request. */
  SimTrace *trace;
  Dir d[2];
  LinkPort port[2];
  gboolean trace_primed;
  GHashTable *flows;
  uint64_t flow_seq;
};

/* TRUE once, for the nth packet of the faulted kind on the faulted direction. */
static gboolean
fault_hits (Link *l, LinkFault kind, LinkDir dir)
{
  return l->fault == kind && l->fault_dir == dir && l->fault_countdown-- == 0;
}

static void wire_fire (SimEngine *engine, void *ctx, uint64_t arg);
static void ack_fire (SimEngine *engine, void *ctx, uint64_t arg);
static void arr_fire (SimEngine *engine, void *ctx, uint64_t arg);

/* ---- parameters ---- */

gboolean
link_params_validate (const LinkParams *p, GError **error)
{
  Phy phy;
  if (!phy_init_mode (&phy, p->gen, p->lanes, p->flit_mode, p->sris, p->skp_interval_symbols, error))
    return FALSE;
  /* A rate of 1e-2 already corrupts nearly every TLP; beyond it nothing would ever get through. */
  if (!(p->ber >= 0 && p->ber <= 1e-2)) {
    g_set_error (error, LINK_ERROR, LINK_ERROR_PARAM, "ber %g is not 0..1e-2", p->ber);
    return FALSE;
  }
  uint32_t mps = p->max_payload_bytes;
  /* pcie-protocol.md §6: MPS is a power of two from 128 to 4096 bytes. */
  if (mps < 128 || mps > 4096 || (mps & (mps - 1))) {
    g_set_error (error, LINK_ERROR, LINK_ERROR_PARAM, "max_payload_bytes %u is not 128..4096, power of 2", mps);
    return FALSE;
  }
  /* An interval shorter than two ordered sets (with their block alignment) would leave no room for packets;
   * the spec range is far above it (§4: 1180 symbols, 370 blocks), so anything near it is a typo. */
  uint32_t min_skp = 2 * (phy.skp_symbols + phy.os_align_symbols);
  if (p->skp_interval_symbols && p->skp_interval_symbols < min_skp) {
    g_set_error (error, LINK_ERROR, LINK_ERROR_PARAM, "skp_interval_symbols %u is below %u", p->skp_interval_symbols,
                 min_skp);
    return FALSE;
  }
  if (p->updatefc_period_ps > UPDATEFC_PERIOD_MAX_PS) {
    g_set_error (error, LINK_ERROR, LINK_ERROR_PARAM, "updatefc_period_ps %" G_GUINT64_FORMAT " exceeds 30 us",
                 p->updatefc_period_ps);
    return FALSE;
  }
  /* At least one max-payload TLP with a 3-DW header must fit, or the transmitter would stall forever
   * (link_port_can_send() aborts on a bigger TLP that can never fit). */
  uint32_t smallest_full = 12 + mps + phy.tlp_framing_bytes;
  if (p->replay_buffer_bytes && p->replay_buffer_bytes < smallest_full) {
    g_set_error (error, LINK_ERROR, LINK_ERROR_PARAM, "replay_buffer_bytes %u cannot hold one %u-byte TLP",
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
   * non-flit at 16 GT/s and above, the simplified limit; below, 3 × the Ack latency limit (the older tables).
   * ASSUMPTION: a port supports no rate above its link's, so a Gen3 link keeps the older limit. */
  l->replay_timer_symbols = params->replay_timer_symbols ? params->replay_timer_symbols
                            : l->phy.flit     ? 1500 * (PHY_FLIT_BYTES / l->phy.lanes)
                            : l->phy.gen >= 4 ? LINK_REPLAY_SIMPLIFIED_SYMBOLS
                                              : 3 * phy_ack_limit_symbols (&l->phy, params->max_payload_bytes);
  if (!l->p.retrain_ps)
    l->p.retrain_ps = LINK_RETRAIN_PS_DEFAULT;
  l->window_tlps = l->phy.flit ? UINT64_MAX : LINK_SEQ_WINDOW;
  l->window_bytes = params->replay_buffer_bytes ? params->replay_buffer_bytes : UINT64_MAX;
  if (l->phy.flit)
    l->window_bytes = MIN (l->window_bytes, (uint64_t) LINK_FLIT_WINDOW * PHY_FLIT_TLP_BYTES);
  if (params->ber > 0) {
    l->errors = TRUE;
    l->log_q = log1p (-params->ber);
    /* A flit is lost when FEC cannot correct it; a non-flit DLLP (8 bytes, §3) when any bit is wrong. */
    l->p_flit_bad = phy_flit_error_prob (&l->phy, params->ber);
    l->p_dllp_bad = l->phy.flit ? l->p_flit_bad : -expm1 (64.0 * l->log_q);
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
  }
  /* Direction d is sent by LinkEnd d and received at the end that does not transmit on it: LinkEnd 1 - d. */
  for (int dir = 0; dir < 2; dir++) {
    l->latency_ps[dir] = l->tx_pipe_ps[dir] + params->flight_ps + l->rx_pipe_ps[1 - dir];
    gboolean fits = l->tx_pipe_ps[1 - dir] + l->rx_pipe_ps[1 - dir] <= phy_sym_ps (&l->phy, l->ack_limit_symbols);
    l->ack_timer[dir] = !(params->ack_every_tlps[1 - dir] == 1 && fits);
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
    d->wire_ev = d->arr_ev = d->ack_ev = SIM_EVENT_NONE;
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
    if (d->rtlp)
      for (uint64_t k = 0; k < d->tx_seq - d->acked_seq; k++)
        tlp_free (link->pool, d->rtlp[(d->replay_head + k) & (d->replay_cap - 1)]);
    if (d->rand)
      g_rand_free (d->rand);
    g_free (d->rtlp);
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

/* ---- small containers ---- */

/* The FIFO grows by doubling and keeps its capacity, so steady-state traffic never allocates. Both rings keep a
 * power-of-two capacity, so an index wraps with a mask, not a division. The arrival ring starts at 8 entries (320
 * bytes): a ring cycles through all its entries, and a fabric has dozens of them, so one larger than the packets
 * in flight only spreads them over more cache lines. Only an empty FIFO needs a new event: later arrivals are
 * never earlier than the head (same latency, in-order serialiser). */
static G_GNUC_NO_INLINE void
arr_grow (Dir *d)
{
  uint32_t cap = d->arr_cap ? d->arr_cap * 2 : 8;
  Arrival *n = g_new (Arrival, cap);
  for (uint32_t k = 0; k < d->arr_len; k++)
    n[k] = d->arr[(d->arr_head + k) & (d->arr_cap - 1)];
  g_free (d->arr);
  d->arr = n;
  d->arr_cap = cap;
  d->arr_head = 0;
}

/* Flit mode only: a DLLP rides in the next flit's DLP bytes and so may arrive before a long TLP placed earlier
 * (whose last flit is later); it moves in ahead of it. Out of line: every other mode appends (arr_push()). */
static G_GNUC_NO_INLINE void
arr_insert_sorted (Dir *d, const Arrival *a)
{
  uint32_t k = d->arr_len;
  for (; k > 0 && d->arr[(d->arr_head + k - 1) & (d->arr_cap - 1)].at > a->at; k--)
    d->arr[(d->arr_head + k) & (d->arr_cap - 1)] = d->arr[(d->arr_head + k - 1) & (d->arr_cap - 1)];
  d->arr[(d->arr_head + k) & (d->arr_cap - 1)] = *a;
  if (d->arr_len++ == 0) {
    d->arr_ev = sim_schedule_at (d->link->engine, a->at, arr_fire, d, 0);
  } else if (k == 0) {
    sim_cancel (d->link->engine, d->arr_ev);
    d->arr_ev = sim_schedule_at (d->link->engine, a->at, arr_fire, d, 0);
  }
}

/* Everything but flit mode arrives in placement order: an append, inline because every packet takes it. */
static inline __attribute__ ((always_inline)) void
arr_push (Dir *d, const Arrival *a)
{
  if (G_UNLIKELY (d->arr_len == d->arr_cap))
    arr_grow (d);
  if (G_UNLIKELY (d->flit)) {
    arr_insert_sorted (d, a);
    return;
  }
  d->arr[(d->arr_head + d->arr_len) & (d->arr_cap - 1)] = *a;
  if (d->arr_len++ == 0)
    d->arr_ev = sim_schedule_at (d->link->engine, a->at, arr_fire, d, 0);
}

/* Without errors the replay buffer never replays, so it holds only sizes: that is all the stall rule needs. With
 * errors it holds the TLPs too (`t`, else NULL). */
static void
replay_push (Dir *d, uint32_t bytes, Tlp *t)
{
  /* The ring holds exactly tx_seq - acked_seq entries; wire_fire() pushes before counting the new TLP in tx_seq,
   * so `len` is also the index the new entry takes. */
  uint32_t len = (uint32_t) (d->tx_seq - d->acked_seq);
  if (len == d->replay_cap) {
    uint32_t cap = d->replay_cap ? d->replay_cap * 2 : 64;
    uint32_t *n = g_new (uint32_t, cap);
    for (uint32_t k = 0; k < len; k++)
      n[k] = d->replay[(d->replay_head + k) & (d->replay_cap - 1)];
    g_free (d->replay);
    d->replay = n;
    if (t) {
      Tlp **nt = g_new (Tlp *, cap);
      for (uint32_t k = 0; k < len; k++)
        nt[k] = d->rtlp[(d->replay_head + k) & (d->replay_cap - 1)];
      g_free (d->rtlp);
      d->rtlp = nt;
    }
    d->replay_cap = cap;
    d->replay_head = 0;
  }
  d->replay[(d->replay_head + len) & (d->replay_cap - 1)] = bytes;
  if (t)
    d->rtlp[(d->replay_head + len) & (d->replay_cap - 1)] = t;
  d->replay_bytes += bytes;
}

/* Edge-triggered: a user hears once per refused can_send, which keeps idle sources out of the hot path. */
static inline __attribute__ ((always_inline)) void
port_notify (LinkPort *port)
{
  if (port->want_ready && port->ready_fn) {
    port->want_ready = FALSE;
    /* Refused no longer: idle (if at all) for what the sender waits for, until it is refused again. */
    stall_follow_at (&port->tx->stall, port->link->engine);
    port->ready_fn (port->ready_ctx, port);
  }
}

/* The TLP's wire bytes as the PHY counts them. Outside flit mode that is the transaction bytes plus a per-mode
 * constant (phy.c's nonflit_tlp_wire_bytes()), worked out here without the indirect call: it runs three times per
 * TLP (the probe, the hand-over and the send each ask link_port_can_send(), and the serialiser once more). */
static inline uint32_t
tlp_wire_bytes (const Phy *phy, const Tlp *t)
{
  if (G_LIKELY (!phy->flit))
    return tlp_transaction_bytes (t) + phy->tlp_framing_bytes;
  return phy->ops->tlp_wire_bytes (phy, t);
}

/* The PHY's placement of a packet; outside flit mode inline, for the same reason as tlp_wire_bytes(). */
static inline void
place_packet (const Phy *phy, uint64_t base, uint32_t bytes, PhyPlacement *pl)
{
  if (G_LIKELY (!phy->flit))
    phy_nonflit_place_packet (phy, base, bytes, pl);
  else
    phy->ops->place_packet (phy, base, bytes, pl);
}

/* ---- why and traces ---- */

/* Start of a slot in ps, exactly (floor): slot / lanes symbol times. Two packets sharing a symbol time (x8, x16)
 * meet at a slot, so their slices never overlap. */
static inline SimTime
slot_ps (const Phy *phy, uint64_t slot)
{
  uint64_t dl = phy->sym_den * phy->lanes;
  /* Two per packet (stall_busy()): at every width but x12 the divisor is a power of two, and a shift gives the
   * same floor as the division, at a fraction of its latency. */
  if ((dl & (dl - 1)) == 0)
    return slot * phy->sym_num_ps >> __builtin_ctzll (dl);
  return slot * phy->sym_num_ps / dl;
}

/* Credits held (consumed, not yet returned) integrated up to now, before class c's consumed or limit changes. */
static void
fc_hold (Dir *d, FcClass c, SimTime now)
{
  const FcTx *tx = &d->fc_tx;
  SimTime dt = now - d->fc_t[c];
  d->fc_t[c] = now;
  for (int p = 0; p < 2; p++)
    if (!tx->infinite[c][p])
      d->fc_area[c][p] += (tx->consumed[c][p] + d->fc_rx.advertised[c][p] - tx->limit[c][p]) * dt;
}

/* The rest is for traced runs only: each caller tests Link.trace first. */

static G_GNUC_NO_INLINE void
trace_fc (Link *l, Dir *d, FcClass c, SimTime now)
{
  /* The first change: every finite type of both directions starts from its advertisement, so a class without
   * traffic still shows its credits. */
  if (!l->trace_primed) {
    l->trace_primed = TRUE;
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < FC_CLASS_COUNT; k++)
        for (int p = 0; p < 2; p++)
          if (!l->d[i].fc_tx.infinite[k][p] && (i != (int) d->dir || k != (int) c))
            trace_credits (l->trace, &l->d[i].tr, (FcClass) k, (FcPart) p, now,
                           fc_tx_available (&l->d[i].fc_tx, (FcClass) k, (FcPart) p));
  }
  for (int p = 0; p < 2; p++)
    if (!d->fc_tx.infinite[c][p])
      trace_credits (l->trace, &d->tr, c, (FcPart) p, now, fc_tx_available (&d->fc_tx, c, (FcPart) p));
}

static TraceWire
trace_kind (TlpKind k)
{
  static const TraceWire w[TLP_KIND_COUNT] = { [TLP_MWR] = TRACE_WIRE_MWR, [TLP_MRD] = TRACE_WIRE_MRD,
                                               [TLP_CPLD] = TRACE_WIRE_CPLD, [TLP_CPL] = TRACE_WIRE_CPL,
                                               [TLP_MSI] = TRACE_WIRE_MSI };
  return w[k];
}

/* A TLP on the wire: its slice, and the arrow of a read: started at the MRd, stepped at each completion, ended at
 * the one whose byte count is its own payload (the last, spec §2.2.9). A replay sends the TLP again: a slice,
 * no arrow. */
static G_GNUC_NO_INLINE void
trace_tlp (Link *l, Dir *d, const Tlp *t, const PhyPlacement *pl, gboolean replayed)
{
  const Phy *phy = &l->phy;
  SimTime start = slot_ps (phy, pl->start_slot);
  gboolean read = t->kind == TLP_MRD || t->kind == TLP_CPLD || t->kind == TLP_CPL;
  trace_wire (l->trace, &d->tr, trace_kind (t->kind), start, slot_ps (phy, pl->end_slot) - start,
              read ? t->tag : 0, t->kind == TLP_MRD ? t->length_bytes : t->payload_bytes);
  if (replayed || !read)
    return;
  gpointer key = GUINT_TO_POINTER ((guint) t->requester << 16 | t->tag);
  if (t->kind == TLP_MRD) {
    g_hash_table_insert (l->flows, key, GSIZE_TO_POINTER (++l->flow_seq));
    trace_read_request (l->trace, &d->tr, l->flow_seq, start);
    return;
  }
  gpointer id = g_hash_table_lookup (l->flows, key);
  if (id == NULL)
    return; /* the request went up another link (a fabric) */
  gboolean last = t->kind == TLP_CPL || t->length_bytes <= t->payload_bytes;
  trace_read_completion (l->trace, &d->tr, GPOINTER_TO_SIZE (id), start, last);
  if (last)
    g_hash_table_remove (l->flows, key);
}

/* ---- transmitter ---- */

static uint64_t
ceil_div (uint64_t a, uint64_t b)
{
  return (a + b - 1) / b;
}

/* When the symbol time holding `slot`'s last lane ends: slot / lanes rounded up. */
static inline SimTime
slot_sym_end_ps (const Phy *phy, uint64_t slot)
{
  return phy_sym_ps (phy, ceil_div (slot, phy->lanes));
}

/* A packet ending mid-symbol keeps the wire until that symbol time ends: the next decision is at its boundary. */
static SimTime
wire_free_ps (const Dir *d)
{
  const Phy *phy = &d->link->phy;
  return slot_sym_end_ps (phy, d->cursor);
}

/* SKPs are not in the list: an idle wire keeps no event for them, and skp_catch_up() places them afterwards at
 * their due times. Waking for every SKP would keep an idle link busy and the engine could never drain. */
static gboolean
has_ready (const Dir *d)
{
  return d->ack_due || d->fc_due[FC_P] || d->fc_due[FC_NP] || d->fc_due[FC_CPL] || d->q.head
         || (d->errors && (d->nak_due || d->replay_pos < d->tx_seq - d->acked_seq));
}

static G_GNUC_NO_INLINE void flit_dllps (Dir *d);

/* Make sure a wire event exists no later than the serialiser can act; an earlier pending one already covers it.
 * In flit mode DLLPs take no serialiser time: they go into the next flit's DLP bytes at once. */
static void
wire_kick (Dir *d)
{
  if (d->flit)
    flit_dllps (d);
  if (!has_ready (d))
    return;
  SimEngine *e = d->link->engine;
  SimTime at = MAX (sim_now (e), wire_free_ps (d));
  if (sim_event_pending (e, d->wire_ev)) {
    if (d->wire_ev_at <= at)
      return;
    sim_cancel (e, d->wire_ev);
  }
  d->wire_ev = sim_schedule_at (e, at, wire_fire, d, 0);
  d->wire_ev_at = at;
}

/* Where the next packet may start: right behind the previous one if that ended within the symbol time just
 * finishing (back to back, lane placement applies), otherwise lane 0 of the next symbol (§2: after idle a packet
 * starts in lane 0). */
static uint64_t
wire_base (const Dir *d, uint64_t now_sym)
{
  uint32_t lanes = d->link->phy.lanes;
  uint64_t now_slot = now_sym * lanes;
  return d->cursor + lanes > now_slot ? d->cursor : now_slot;
}

static void
skp_catch_up (Dir *d, uint64_t now_sym)
{
  const Phy *phy = &d->link->phy;
  /* §4: SKPs are scheduled on a fixed interval and sent at the next packet boundary; one that fell due while
   * the wire was idle went out at its due time (lane 0), so it is placed there retroactively. */
  while (d->skp_due_sym <= now_sym) {
    uint64_t due_slot = d->skp_due_sym * phy->lanes;
    uint64_t base = d->cursor > due_slot ? d->cursor : due_slot;
    PhyPlacement pl;
    phy->ops->place_skp (phy, base, &pl);
    if (G_UNLIKELY (d->link->trace != NULL))
      trace_wire (d->link->trace, &d->tr, TRACE_WIRE_SKP, slot_ps (phy, pl.start_slot),
                  slot_ps (phy, pl.end_slot) - slot_ps (phy, pl.start_slot), 0, 0);
    d->s_os += pl.end_slot - pl.start_slot;
    d->cursor = pl.end_slot;
    d->cnt.skps++;
    d->skp_due_sym += phy->skp_interval_symbols;
  }
}

/* The far side has a packet once its last symbol time is complete and the pipelines and flight have passed (in
 * flit mode: once the flit holding its last byte is in). Returns that time. */
static inline __attribute__ ((always_inline)) SimTime
send_to_far_side (Dir *d, uint64_t end_slot, Arrival *a)
{
  const Phy *phy = &d->link->phy;
  a->at = slot_sym_end_ps (phy, end_slot) + d->link->latency_ps[d->dir];
  arr_push (d, a);
  return a->at;
}

/* DLLPs follow the same lane placement as TLPs (§2), and only their own bytes count as DLLP time: padding in
 * front of them stays idle, as for TLPs. */
static inline __attribute__ ((always_inline)) uint64_t
place_dllp (Dir *d, uint64_t base, TraceWire what)
{
  const Phy *phy = &d->link->phy;
  /* Flit mode sends its DLLPs in DLP bytes (flit_dllps()), not here: the non-flit size, without the indirect call. */
  uint32_t bytes = G_LIKELY (!phy->flit) ? phy->dllp_bytes : phy->ops->dllp_wire_bytes (phy);
  PhyPlacement pl;
  place_packet (phy, base, bytes, &pl);
  SimTime start = slot_ps (phy, pl.start_slot), end = slot_ps (phy, pl.end_slot);
  stall_busy (&d->stall, start, end);
  if (G_UNLIKELY (d->link->trace != NULL))
    trace_wire (d->link->trace, &d->tr, what, start, end - start, 0, 0);
  d->cursor = pl.end_slot;
  d->s_dllp += bytes;
  d->cnt.dllps++;
  return pl.end_slot;
}

/* §3: the Ack timer of direction d's receiver starts with the first TLP not yet covered by a scheduled Ack. The
 * limit runs pin to pin (spec §3.6.3.1), and its InternalDelay covers the receiver's own pipelines, so a receiver
 * meets it whatever its configured pipelines: the Ack's first symbol leaves the pins one limit after the TLP's
 * last symbol arrived there. The model's transmit pipeline sits after the serialiser (top of file), so the Ack
 * enters the serialiser tx_pipeline_ps before that, possibly before the TLP has reached the pins at all; that is
 * never before the TLP left the far serialiser (the limit outlasts no flight), so the timer is started then. */
static G_GNUC_NO_INLINE void
ack_timer_start (Dir *d, SimTime pin_ps)
{
  Link *l = d->link;
  SimTime due = phy_sym_ps (&l->phy, phy_sym_at_or_after (&l->phy, pin_ps) + l->ack_limit_symbols);
  SimTime tx = l->tx_pipe_ps[1 - d->dir]; /* of the receiving end, which sends the Ack */
  due = MAX (due - MIN (due, tx), sim_now (l->engine));
  d->ack_ev = sim_schedule_at (l->engine, due, ack_fire, d, 0);
}

/* What an Ack placed now acknowledges: the TLPs delivered, and those behind them whose last symbol reached the pins
 * before the Ack's first symbol leaves them (now + tx pipeline), though still in the receive pipeline. Strictly
 * before, so with no pipelines it counts none beyond the delivered. The first TLP it leaves out starts the timer
 * again. */
static inline __attribute__ ((always_inline)) uint64_t
ack_count (Dir *d, SimTime now)
{
  Link *l = d->link;
  uint64_t n = d->rx_seq;
  SimTime rx = l->rx_pipe_ps[1 - d->dir], out = now + l->tx_pipe_ps[1 - d->dir];
  /* Arrivals are in time order (but for flit-mode DLLPs, which are not counted): a head not yet at the pins
   * ends the search at once, as it mostly does, unless the loop below has a timer to start. */
  if (!d->arr_len
      || (d->arr[d->arr_head].at >= out + rx
          && (!l->ack_timer[d->dir] || sim_event_pending (l->engine, d->ack_ev))))
    return n;
  for (uint32_t k = 0; k < d->arr_len; k++) {
    const Arrival *a = &d->arr[(d->arr_head + k) & (d->arr_cap - 1)];
    if (a->kind != ARR_TLP)
      continue;
    SimTime whole = a->b ? a->b : a->at;
    if (whole - rx < out && !a->bad && a->a == n) {
      n++;
      continue;
    }
    /* A bad or out-of-order TLP gets a Nak when it is delivered, not an Ack. */
    if (!a->bad && a->a == n && l->ack_timer[d->dir] && !sim_event_pending (l->engine, d->ack_ev))
      ack_timer_start (d, whole - rx);
    break;
  }
  return n;
}

/* ---- DLLP contents, shared by the serialiser (non-flit) and the flit DLP path ---- */

/* Error model: whether a DLLP just placed on d arrives with a bad CRC (or in a lost flit). */
static gboolean
dllp_draw_bad (Dir *d)
{
  return d->link->p.ber > 0 && g_rand_double (d->rand) < d->link->p_dllp_bad;
}

/* One Ack acknowledges everything received so far (coalescing, §3): the sequence number is read when the DLLP is
 * built, so TLPs that arrived while it waited for the wire ride along. A Nak carries the same number: the last
 * TLP received in order (spec §3.6.3). Inline, like updatefc_build() and ack_count(): out of line, the Arrival
 * returned by value went through memory on every Ack. */
static inline __attribute__ ((always_inline)) Arrival
ack_build (Dir *d, Dir *o, ArrivalKind kind, SimTime now)
{
  d->cnt.acks++;
  o->rx_unacked = 0; /* TLPs counted while the Ack waited for the wire ride on it too */
  Arrival a = { .kind = kind, .a = kind == ARR_NAK ? o->rx_seq : ack_count (o, now) };
  if (d->errors)
    a.bad = dllp_draw_bad (d) || (kind == ARR_ACK && fault_hits (d->link, LINK_FAULT_LOST_ACK, d->dir));
  return a;
}

static inline __attribute__ ((always_inline)) Arrival
updatefc_build (Dir *d, Dir *o, FcClass c, SimTime now)
{
  Arrival a = { .kind = ARR_UPDATEFC, .cls = c };
  /* The DLLP carries the limits as of now, so credits freed while it waited ride along. */
  fc_rx_current_limit (&o->fc_rx, c, &a.a, &a.b);
  if (fault_hits (d->link, LINK_FAULT_EXTRA_CREDIT, d->dir))
    a.a++;
  fc_rx_mark_sent (&o->fc_rx, c);
  o->fc_last_sent_ps[c] = now;
  sim_cancel (d->link->engine, o->fc_lat_timer[c]); /* this DLLP carries everything freed so far */
  o->fc_lat_timer[c] = SIM_EVENT_NONE;
  d->fc_due[c] = FALSE;
  d->cnt.updatefcs++;
  if (d->errors)
    a.bad = dllp_draw_bad (d);
  return a;
}

/* Flit mode: DLLPs due now ride in the DLP bytes of the next flits whose DLP has not gone out: an Ack or Nak in
 * bytes 0-1 and one other DLLP in bytes 2-5 of each flit (§3), so each kind takes the next flit it has not used
 * yet. They cost no wire bytes of their own; the receiver has them when the flit is in. */
static G_GNUC_NO_INLINE void
flit_dllps (Dir *d)
{
  gboolean fc = d->fc_due[FC_P] || d->fc_due[FC_NP] || d->fc_due[FC_CPL];
  if (!d->ack_due && !d->nak_due && !fc)
    return;
  Link *l = d->link;
  const Phy *phy = &l->phy;
  Dir *o = &l->d[1 - d->dir];
  SimTime now = sim_now (l->engine);
  /* Not before the cursor when a retrain holds the wire (retrain()). */
  uint64_t now_slot = phy_sym_at_or_after (phy, now) * phy->lanes;
  uint64_t k = phy_flit_dlp_at_or_after (phy, MAX (now_slot, d->retrain_end_slot));
  while (d->nak_due || d->ack_due) {
    uint64_t f = MAX (k, d->ack_flit);
    d->ack_flit = f + 1;
    Arrival a = ack_build (d, o, d->nak_due ? ARR_NAK : ARR_ACK, now);
    if (d->nak_due)
      d->nak_due = FALSE;
    else
      d->ack_due = FALSE;
    d->cnt.dllps++;
    send_to_far_side (d, phy_flit_start (phy, f) + PHY_FLIT_BYTES, &a);
  }
  for (int c = 0; c < FC_CLASS_COUNT; c++) {
    if (!d->fc_due[c])
      continue;
    uint64_t f = MAX (k, d->dllp_flit);
    d->dllp_flit = f + 1;
    Arrival a = updatefc_build (d, o, (FcClass) c, now);
    d->cnt.dllps++;
    send_to_far_side (d, phy_flit_start (phy, f) + PHY_FLIT_BYTES, &a);
  }
}

/* ---- error model: transmit side ---- */

/* Whether the TLP just placed arrives corrupted. Non-flit: any of the 8 × wire bytes bits wrong fails the LCRC
 * (pcie-protocol.md §10). Flit mode: any flit holding its bytes lost (FEC could not correct it); each flit is
 * drawn once, in order, so TLPs sharing a flit share its fate. */
static G_GNUC_NO_INLINE gboolean
tlp_draw_bad (Dir *d, uint32_t bytes, const PhyPlacement *pl, uint64_t seq)
{
  Link *l = d->link;
  gboolean bad = FALSE;
  if (l->lcrc_times && l->lcrc_dir == d->dir && l->lcrc_seq == seq) {
    l->lcrc_times--;
    bad = TRUE;
  }
  if (l->p.ber <= 0)
    return bad;
  if (!l->phy.flit)
    return g_rand_double (d->rand) < -expm1 (8.0 * bytes * l->log_q) || bad;
  for (uint64_t k = MAX (pl->first_flit, d->drawn_flit); k <= pl->last_flit; k++) {
    if (k >= d->drawn_flit) {
      d->drawn_bad = g_rand_double (d->rand) < l->p_flit_bad;
      d->drawn_flit = k + 1;
      d->errs.flit_errors += d->drawn_bad;
    }
    bad = bad || d->drawn_bad;
  }
  return bad;
}

static void replay_fire (SimEngine *engine, void *ctx, uint64_t arg);

/* REPLAY_TIMER (spec §3.6.2.1): started by a TLP's transmission when it is not running, counted from its last
 * symbol at the port's pins (`from_ps`). */
static G_GNUC_NO_INLINE void
replay_timer_start (Dir *d, SimTime from_ps)
{
  Link *l = d->link;
  if (sim_event_pending (l->engine, d->replay_ev))
    return;
  SimTime due = phy_sym_ps (&l->phy, phy_sym_at_or_after (&l->phy, from_ps) + l->replay_timer_symbols);
  d->replay_ev = sim_schedule_at (l->engine, due, replay_fire, d, 0);
}

/* ---- the serialiser ---- */

/* A copy to put on the wire: the receiver takes and frees what arrives, while the original stays for replay. */
static G_GNUC_NO_INLINE Tlp *
tlp_copy (Link *l, const Tlp *t)
{
  Tlp *c = tlp_alloc (l->pool);
  *c = *t;
  c->next = NULL;
  return c;
}

/* The next TLP for the wire: the oldest not yet resent while a replay runs (replays go before new TLPs, §3),
 * else the head of the queue. Returns the TLP itself (for the tx-placed callback, which knows it by address);
 * with errors the wire carries a copy. */
static Tlp *
tlp_next (Dir *d, uint32_t *bytes, uint64_t *seq, gboolean *replayed)
{
  Link *l = d->link;
  const Phy *phy = &l->phy;
  uint64_t unacked = d->tx_seq - d->acked_seq;
  if (d->errors && d->replay_pos < unacked) {
    uint32_t i = (d->replay_head + d->replay_pos) & (d->replay_cap - 1);
    *seq = d->acked_seq + d->replay_pos++;
    *bytes = d->replay[i];
    *replayed = TRUE;
    d->errs.replayed_tlps++;
    d->errs.replayed_bytes += *bytes;
    return d->rtlp[i];
  }
  Tlp *t = tlp_fifo_pop (&d->q);
  d->q_len--;
  /* No replay-space check: link_port_can_send() reserved the space (q_bytes) when it accepted the TLP. */
  *bytes = tlp_wire_bytes (phy, t);
  d->q_bytes -= *bytes;
  *seq = d->tx_seq;
  *replayed = FALSE;
  /* Spec §3: 12-bit sequence number; the model keeps the full count and the TLP carries its low bits. */
  t->seq = (uint16_t) (d->tx_seq & 0xfff);
  if (fault_hits (d->link, LINK_FAULT_SKIP_SEQ, d->dir))
    t->seq = (uint16_t) ((t->seq + 1) & 0xfff);
  replay_push (d, *bytes, d->errors ? t : NULL);
  d->tx_seq++;
  d->replay_pos += d->errors;
  return t;
}

/* One decision per event: SKPs that fell due, then at most one packet, then (if more is ready) a new event for
 * when it ends. Deciding at every packet boundary rather than queueing a batch is what lets an Ack or UpdateFC
 * that falls due during a long TLP overtake the TLPs queued behind it. UpdateFC classes go P, NP, Cpl: a fixed
 * order keeps runs reproducible. In flit mode DLLPs never reach here (flit_dllps()). */
static void
wire_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) arg;
  Dir *d = ctx;
  Link *l = d->link;
  const Phy *phy = &l->phy;
  Dir *o = d->opp; /* the opposite direction, whose receiver our DLLPs serve */
  d->wire_ev = SIM_EVENT_NONE;
  SimTime now = sim_now (e);
  uint64_t now_sym = phy_sym_at_or_after (phy, now);
  uint64_t base = wire_base (d, now_sym);
  if (d->skp_due_sym <= now_sym) {
    skp_catch_up (d, now_sym);
    if (wire_free_ps (d) > now) {
      /* Decide the next packet when the ordered set ends: a DLLP may become due meanwhile. */
      wire_kick (d);
      return;
    }
    base = wire_base (d, now_sym);
  }
  gboolean drained = FALSE;
  if (d->nak_due || d->ack_due) {
    /* §3 priority: Nak before Ack. */
    ArrivalKind kind = d->nak_due ? ARR_NAK : ARR_ACK;
    uint64_t end = place_dllp (d, base, kind == ARR_NAK ? TRACE_WIRE_NAK : TRACE_WIRE_ACK);
    Arrival a = ack_build (d, o, kind, now);
    if (kind == ARR_NAK)
      d->nak_due = FALSE;
    else
      d->ack_due = FALSE;
    send_to_far_side (d, end, &a);
  } else if (d->fc_due[FC_P] || d->fc_due[FC_NP] || d->fc_due[FC_CPL]) {
    FcClass c = d->fc_due[FC_P] ? FC_P : d->fc_due[FC_NP] ? FC_NP : FC_CPL;
    uint64_t end = place_dllp (d, base, (TraceWire) (TRACE_WIRE_UPDATEFC_P + c));
    Arrival a = updatefc_build (d, o, c, now);
    send_to_far_side (d, end, &a);
  } else if (has_ready (d)) {
    uint32_t bytes;
    uint64_t seq;
    gboolean replayed;
    Tlp *t = tlp_next (d, &bytes, &seq, &replayed);
    PhyPlacement pl;
    place_packet (phy, base, bytes, &pl);
    stall_busy (&d->stall, slot_ps (phy, pl.start_slot), slot_ps (phy, pl.end_slot));
    if (G_UNLIKELY (l->trace != NULL)) {
      trace_tlp (l, d, t, &pl, replayed);
      trace_replay_bytes (l->trace, &d->tr, now, d->replay_bytes);
    }
    d->cursor = pl.end_slot;
    d->s_payload += t->payload_bytes;
    d->s_overhead += bytes - t->payload_bytes; /* header, ECRC and framing */
    if (d->flit && pl.last_flit >= d->charged_flit) {
      /* Each flit carrying TLP bytes charges its DLP, CRC and FEC bytes once; IDLE flits stay idle. */
      d->s_overhead += (pl.last_flit + 1 - MAX (pl.first_flit, d->charged_flit)) * (PHY_FLIT_BYTES - PHY_FLIT_TLP_BYTES);
      d->charged_flit = pl.last_flit + 1;
    }
    d->cnt.tlps++;
    d->cnt.payload_bytes += t->payload_bytes;
    /* When the last symbol leaves the serialiser: the tx-placed time and, outside flit mode (where the TLP is
     * usable once its last symbol is in: avail_slot is end_slot), the start of its way to the far side. */
    SimTime end_ps = slot_sym_end_ps (phy, pl.end_slot);
    LinkPort *tx = d->tx_port;
    if (tx->placed_fn && !replayed)
      tx->placed_fn (tx->placed_ctx, tx, t, end_ps);
    Arrival a = { .kind = ARR_TLP, .cls = tlp_fc_class (t->kind), .tlp = t, .a = seq };
    if (d->errors) {
      a.tlp = tlp_copy (l, t);
      a.bad = tlp_draw_bad (d, bytes, &pl, seq);
    }
    SimTime at;
    if (d->rx_port->at_header && !d->flit && !d->errors) {
      /* Cut-through: due once the symbol time holding the header's last byte is in. Before the header on the
       * wire: STP and sequence number (3 bytes) at 8b/10b, the 4-byte STP token at 128b/130b (pcie-protocol.md
       * §2); a TLP is never split by an ordered set outside flit mode, so its bytes run on from start_slot. */
      at = end_ps + l->latency_ps[d->dir];
      a.b = at;
      uint64_t hdr_end = pl.start_slot + (phy->gen <= 2 ? 3u : 4u) + t->header_bytes;
      a.at = slot_sym_end_ps (phy, hdr_end) + l->latency_ps[d->dir];
      arr_push (d, &a);
    } else if (!d->flit) {
      a.at = at = end_ps + l->latency_ps[d->dir];
      arr_push (d, &a);
    } else {
      at = send_to_far_side (d, pl.avail_slot, &a);
    }
    if (l->ack_timer[d->dir] && !o->ack_due && !sim_event_pending (e, d->ack_ev))
      ack_timer_start (d, at - l->rx_pipe_ps[1 - d->dir]);
    if (d->errors)
      replay_timer_start (d, phy_sym_ps (phy, ceil_div (pl.end_slot, phy->lanes)) + l->tx_pipe_ps[d->dir]);
    drained = !replayed;
  }
  wire_kick (d);
  /* A TLP left the queue: a sender refused for a full queue may now go on. */
  if (drained)
    port_notify (d->tx_port);
}

/* ---- receiver ---- */

/* Timer expiry and the count trigger end alike: the opposite transmitter owes an Ack, which will read rx_seq
 * when it goes on the wire. The count restarts now, as the spec restarts the timer once an Ack is scheduled. */
static void
ack_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  (void) arg;
  Dir *d = ctx;
  Dir *rev = d->opp;
  d->ack_ev = SIM_EVENT_NONE;
  d->rx_unacked = 0;
  rev->ack_due = TRUE;
  wire_kick (rev);
}

/* Error model: the far transmitter's limit is below what this receiver has granted, i.e. an UpdateFC was lost.
 * Looking at the far side only decides whether an event is needed: it stands for a refresh timer that never
 * stops, whose firings with nothing lost would change nothing but their DLLP bandwidth. */
static gboolean
fc_stale (const Dir *d, FcClass c)
{
  uint64_t h, dd;
  fc_rx_current_limit (&d->fc_rx, c, &h, &dd);
  return (!d->fc_tx.infinite[c][FC_HDR] && d->fc_tx.limit[c][FC_HDR] < h)
         || (!d->fc_tx.infinite[c][FC_DATA] && d->fc_tx.limit[c][FC_DATA] < dd);
}

#define FC_TIMER_CHECK 4u /* fc_timer_fire's arg: class | this = a refresh kept running only for lost UpdateFCs */

/* The §2.6.1.2 periodic refresh. It guards against a corrupted UpdateFC, which is dropped and never replayed;
 * without errors the model still pays its bandwidth. Started by arriving TLPs (receive_tlp()); with errors it keeps
 * running while an UpdateFC of the class is lost (fc_stale()), or a transmitter could wait for ever. */
static void
fc_timer_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  Dir *d = ctx;
  FcClass c = (FcClass) (arg & ~FC_TIMER_CHECK);
  Dir *rev = &d->link->d[1 - d->dir];
  d->fc_timer[c] = SIM_EVENT_NONE;
  SimTime due = d->fc_last_sent_ps[c] + d->link->p.updatefc_period_ps;
  if (arg & FC_TIMER_CHECK) {
    if (!fc_stale (d, c))
      return;
  } else if (sim_now (e) < due) {
    /* An UpdateFC went out since the timer was armed: the period counts from that one. */
    d->fc_timer[c] = sim_schedule_at (e, due, fc_timer_fire, d, c);
    return;
  }
  if (d->link->errors)
    d->fc_timer[c] = sim_schedule_at (e, sim_now (e) + d->link->p.updatefc_period_ps, fc_timer_fire, d,
                                      c | FC_TIMER_CHECK);
  rev->fc_due[c] = TRUE;
  wire_kick (rev);
}

/* The eager UpdateFC latency ran out: credits freed since the last UpdateFC go back now, all in one DLLP. */
static void
fc_lat_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  Dir *d = ctx;
  Dir *rev = &d->link->d[1 - d->dir];
  d->fc_lat_timer[arg] = SIM_EVENT_NONE;
  rev->fc_due[arg] = TRUE;
  wire_kick (rev);
}

/* Credits are taken before the rx callback runs, because the consumer may release them at once
 * (link_port_consume()) and fc.c would reject a release of credits not yet taken. */
static void
receive_tlp (Dir *d, Tlp *t, SimTime whole_ps)
{
  Link *l = d->link;
  SimEngine *e = l->engine;
  FcClass c = tlp_fc_class (t->kind);
  fc_rx_receive (&d->fc_rx, c, tlp_header_credits (t), tlp_data_credits (t));
  /* No loss and no reordering on one direction: each TLP carries the next sequence number. */
  SIM_INVARIANT (t->seq == (d->rx_seq & 0xfff),
                "link %s: received sequence number %u, expected %u (TLP %" G_GUINT64_FORMAT ")",
                d->dir == LINK_UPSTREAM ? "upstream" : "downstream", t->seq, (unsigned) (d->rx_seq & 0xfff),
                d->rx_seq);
  d->rx_seq++;
  /* The receiving end decides its Ack policy: upstream TLPs land at the DSP. */
  uint32_t every = l->p.ack_every_tlps[1 - d->dir];
  if (every && ++d->rx_unacked >= every && !d->opp->ack_due) {
    /* Count-triggered Ack: the same DLLP the timer would send, only sooner; it restarts the timer (§3.6.3.1).
     * Decided before the timer so an Ack-every-TLP receiver does not arm a timer only to cancel it. */
    /* ack_fire() clears the id, so one that is not SIM_EVENT_NONE is pending: an Ack-every-TLP receiver, which
     * starts no timer, makes no call per TLP to cancel none. */
    if (d->ack_ev.slot != SIM_EVENT_NONE.slot)
      sim_cancel (e, d->ack_ev);
    ack_fire (e, d, 0);
  }
  /* §2.6.1.2 periodic refresh, armed only by traffic so an idle link lets the engine drain. */
  if (fc_rx_class_finite (&d->fc_rx, c) && !sim_event_pending (e, d->fc_timer[c])) {
    SimTime due = MAX (sim_now (e), d->fc_last_sent_ps[c] + l->p.updatefc_period_ps);
    d->fc_timer[c] = sim_schedule_at (e, due, fc_timer_fire, d, c);
  }
  LinkPort *port = d->rx_port;
  port->rx_tail_ps = whole_ps;
  if (port->observe_fn)
    port->observe_fn (port->observe_ctx, t);
  if (port->rx_fn) {
    port->rx_fn (port->rx_ctx, port, t);
  } else {
    /* No consumer attached: behave as an infinitely fast sink. */
    link_port_consume (port, t);
    tlp_free (l->pool, t);
  }
}

/* Acks are cumulative (§3 coalescing): one names the last TLP received in order, so everything up to it leaves the
 * replay buffer at once, and the freed space may unblock the sender. Inline in arr_fire(): one per TLP here. */
static inline __attribute__ ((always_inline)) void
receive_ack (Dir *d, uint64_t acked)
{
  /* An Ack travelling on d acknowledges TLPs sent on the opposite direction. */
  Dir *o = d->opp;
  SIM_INVARIANT (acked <= o->tx_seq,
                "link: Ack for TLP %" G_GUINT64_FORMAT " but only %" G_GUINT64_FORMAT " were sent", acked, o->tx_seq);
  uint64_t before = o->acked_seq;
  while (o->acked_seq < acked) {
    o->replay_bytes -= o->replay[o->replay_head];
    if (o->errors)
      tlp_free (d->link->pool, o->rtlp[o->replay_head]);
    o->replay_head = (o->replay_head + 1) & (o->replay_cap - 1);
    o->acked_seq++;
  }
  if (G_UNLIKELY (d->link->trace != NULL) && o->acked_seq > before)
    trace_replay_bytes (d->link->trace, &o->tr, sim_now (d->link->engine), o->replay_bytes);
  if (o->errors && o->acked_seq > before) {
    /* Forward progress (spec §3.6.2.1): REPLAY_NUM resets and REPLAY_TIMER restarts while sent TLPs remain. */
    uint64_t m = o->acked_seq - before;
    o->replay_pos = o->replay_pos > m ? (uint32_t) (o->replay_pos - m) : 0;
    o->replay_num = 0;
    sim_cancel (d->link->engine, o->replay_ev);
    o->replay_ev = SIM_EVENT_NONE;
    if (o->replay_pos > 0)
      replay_timer_start (o, sim_now (d->link->engine));
  }
  port_notify (o->tx_port);
}

/* ---- error model: recovery ---- */

/* REPLAY_NUM rolled over (spec §3.6.2.1): the data link layer has the physical layer retrain the link (LTSSM
 * Recovery). Both directions stay idle for retrain_ps; packets already on their way still land. In flit mode the
 * link resumes on a flit boundary of the same grid. */
static void
retrain (Link *l, Dir *cause)
{
  const Phy *phy = &l->phy;
  cause->errs.retrains++;
  uint64_t slot = phy_sym_at_or_after (phy, sim_now (l->engine) + l->p.retrain_ps) * phy->lanes;
  if (phy->flit) {
    uint64_t f = phy_flit_dlp_at_or_after (phy, slot);
    if (phy_flit_start (phy, f) < slot)
      f++;
    slot = phy_flit_start (phy, f);
  }
  for (int i = 0; i < 2; i++) {
    Dir *x = &l->d[i];
    x->retrain_end_slot = slot;
    x->cursor = MAX (x->cursor, slot);
  }
}

/* A replay (spec §3.6.2.1): every unacknowledged TLP goes again, in order, before any new one. The fourth replay
 * without forward progress rolls REPLAY_NUM over and retrains the link first. */
static G_GNUC_NO_INLINE void
replay_start (Dir *d, gboolean timeout)
{
  Link *l = d->link;
  if (d->tx_seq == d->acked_seq)
    return;
  sim_cancel (l->engine, d->replay_ev);
  d->replay_ev = SIM_EVENT_NONE;
  d->errs.replays++;
  d->errs.replay_timeouts += timeout;
  if (++d->replay_num == 4) {
    d->replay_num = 0;
    retrain (l, d);
    wire_kick (&l->d[1 - d->dir]);
  }
  d->replay_pos = 0;
  wire_kick (d);
}

static void
replay_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  (void) arg;
  Dir *d = ctx;
  d->replay_ev = SIM_EVENT_NONE;
  replay_start (d, TRUE);
}

/* The receiver's data link layer (spec §3.6.3): a corrupted TLP or one past a lost one is discarded and Nak'd,
 * one Nak at a time (NAK_SCHEDULED until a good TLP in order arrives); a duplicate, from a replay of TLPs already
 * received, is discarded and Ack'd. TRUE: the TLP is the next in order and good. */
static G_GNUC_NO_INLINE gboolean
dll_accept (Dir *d, const Arrival *a)
{
  Link *l = d->link;
  Dir *rev = &l->d[1 - d->dir];
  if (!a->bad && a->a == d->rx_seq) {
    d->nak_scheduled = FALSE;
    return TRUE;
  }
  tlp_free (l->pool, a->tlp);
  if (a->bad)
    d->errs.tlp_errors++;
  if (!a->bad && a->a < d->rx_seq) {
    rev->ack_due = TRUE;
  } else if (!d->nak_scheduled) {
    d->nak_scheduled = TRUE;
    d->errs.naks++;
    rev->nak_due = TRUE;
  }
  wire_kick (rev);
  return FALSE;
}

static void
arr_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) arg;
  Dir *d = ctx;
  d->arr_ev = SIM_EVENT_NONE;
  /* Packets ending in the same symbol time (a DLLP beside another packet on x16) arrive at the same picosecond:
   * one event takes them all, in wire order. */
  while (d->arr_len && d->arr[d->arr_head].at <= sim_now (e)) {
    Arrival a = d->arr[d->arr_head];
    d->arr_head = (d->arr_head + 1) & (d->arr_cap - 1);
    d->arr_len--;
    if (a.bad && a.kind != ARR_TLP) {
      /* A DLLP with a bad CRC is dropped (spec §3.6.1): the next Ack, the replay timer or the refresh covers it. */
      d->errs.dllp_errors++;
      continue;
    }
    switch (a.kind) {
    case ARR_TLP:
      if (!d->errors || dll_accept (d, &a))
        receive_tlp (d, a.tlp, a.b ? a.b : a.at);
      break;
    case ARR_ACK:
      receive_ack (d, a.a);
      break;
    case ARR_NAK:
      receive_ack (d, a.a);
      replay_start (&d->link->d[1 - d->dir], FALSE);
      break;
    case ARR_UPDATEFC: {
      Dir *o = d->opp;
      /* A limit beyond what the receiver can hold (its advertisement plus all it ever freed) would let the
       * transmitter overrun the buffer: credits above the advertisement. */
      const FcRx *far = &o->fc_rx;
      SIM_INVARIANT ((far->infinite[a.cls][FC_HDR] || a.a <= far->advertised[a.cls][FC_HDR] + far->freed[a.cls][FC_HDR])
                    && (far->infinite[a.cls][FC_DATA]
                        || a.b <= far->advertised[a.cls][FC_DATA] + far->freed[a.cls][FC_DATA]),
                    "credits: UpdateFC grants class %d limits %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                    " beyond the receiver's %u/%u advertised + %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " freed",
                    a.cls, a.a, a.b, far->advertised[a.cls][FC_HDR], far->advertised[a.cls][FC_DATA],
                    far->freed[a.cls][FC_HDR], far->freed[a.cls][FC_DATA]);
      fc_hold (o, (FcClass) a.cls, sim_now (e));
      fc_tx_update (&o->fc_tx, (FcClass) a.cls, a.a, a.b);
      if (G_UNLIKELY (d->link->trace != NULL))
        trace_fc (d->link, o, (FcClass) a.cls, sim_now (e));
      port_notify (o->tx_port);
      break;
    }
    default:
      g_assert_not_reached ();
    }
  }
  if (d->arr_len && !sim_event_pending (e, d->arr_ev))
    d->arr_ev = sim_schedule_at (e, d->arr[d->arr_head].at, arr_fire, d, 0);
}

/* ---- the port API ---- */

/* Every refusal arms the tx-ready callback, so the caller may simply retry from it. */
/* A TLP's size on the wire as this link will send it: with ECRC enabled, link_port_send() marks the TLP of an
 * originating port (`adds`), so a probe asked about before that must be counted with the 4 bytes it will carry. */
static uint32_t
wire_bytes (const Link *l, gboolean adds, const Tlp *tlp)
{
  return tlp_wire_bytes (&l->phy, tlp) + (adds && l->p.ecrc && !tlp->ecrc ? TLP_ECRC_BYTES : 0);
}

SimTime
link_tlp_wire_ps (const Link *link, const Tlp *tlp)
{
  const Phy *phy = &link->phy;
  return phy_sym_ps (phy, ceil_div (wire_bytes (link, FALSE, tlp), phy->lanes));
}

/* The refusal, and why (stall.h): until the next tx-ready the direction is idle, if at all, for that. Kept out of
 * line, so the answer "yes", the common one, stays cheap (link_port_can_send runs several times per TLP). */
static G_GNUC_NO_INLINE gboolean
refuse (LinkPort *port, Dir *d, StallCause why)
{
  port->want_ready = TRUE;
  port->refused_why = (uint8_t) why;
  stall_set_at (&d->stall, port->link->engine, why);
  return FALSE;
}

/* Which credit type the TLP lacks: the data part first, since a header short alone is rarer. */
static StallCause
credit_cause (const FcTx *tx, FcClass c, const Tlp *tlp)
{
  gboolean data_short = !tx->infinite[c][FC_DATA] && tx->consumed[c][FC_DATA] + tlp_data_credits (tlp) > tx->limit[c][FC_DATA];
  return stall_credits (c, data_short ? FC_DATA : FC_HDR);
}

/* A TLP the window or the credits hold back: which binds, worked out only on a refusal. The last test that fails
 * names it: credits, then replay space, then the sequence numbers (link_port_can_send's tests, in its order). */
static G_GNUC_NO_INLINE gboolean
refuse_window (LinkPort *port, Dir *d, const Tlp *tlp, uint32_t bytes)
{
  const Link *l = port->link;
  FcClass c = tlp_fc_class (tlp->kind);
  StallCause why = STALL_IDLE;
  if (d->tx_seq - d->acked_seq + d->q_len >= l->window_tlps)
    why = STALL_UNACKED_TLPS;
  if (d->q_bytes + d->replay_bytes + bytes > l->window_bytes)
    why = STALL_REPLAY_BUFFER;
  if (!fc_tx_can (&d->fc_tx, c, tlp_header_credits (tlp), tlp_data_credits (tlp)))
    why = credit_cause (&d->fc_tx, c, tlp);
  return refuse (port, d, why);
}

/* Room and credits for a TLP of `bytes` wire bytes: link_port_can_send()'s test without a refusal's bookkeeping,
 * which link_port_send() repeats as its invariant without a second call and a second size. Spec §3.6.2.1: 12-bit
 * sequence numbers, so the transmitter stops at 2048 unacknowledged TLPs; queued TLPs will take numbers too, so
 * they count. Flit mode numbers flits instead, counted in bytes (window_bytes). §3: a full replay buffer stalls
 * new TLPs; queued TLPs already hold their future replay space. */
static inline __attribute__ ((always_inline)) gboolean
tx_fits (const Link *l, const Dir *d, const Tlp *tlp, uint32_t bytes)
{
  FcClass c = tlp_fc_class (tlp->kind);
  return d->tx_seq - d->acked_seq + d->q_len < l->window_tlps && d->q_bytes + d->replay_bytes + bytes <= l->window_bytes
         && fc_tx_can (&d->fc_tx, c, tlp_header_credits (tlp), tlp_data_credits (tlp));
}

gboolean
link_port_can_send (LinkPort *port, const Tlp *tlp)
{
  Link *l = port->link;
  Dir *d = port->tx;
  /* A full transmit queue is the usual refusal of a busy sender: answered before the rest is worked out (and
   * before the TLP is looked at, which link_port_tx_full() promises). */
  if (link_port_tx_full (port))
    return refuse (port, d, STALL_LINK);
  /* §3: a full replay buffer stalls new TLPs; queued TLPs already hold their future replay space. */
  uint32_t bytes = wire_bytes (l, !port->forwards, tlp);
  /* link_params_validate() guarantees room for a 3-DW-header TLP of MPS; a 4-DW header or ECRC can still overflow
   * a buffer sized at that bound, and such a TLP would wait forever. */
  if (l->p.replay_buffer_bytes && bytes > l->p.replay_buffer_bytes)
    g_error ("a %u-byte TLP can never fit the %u-byte replay buffer", bytes, l->p.replay_buffer_bytes);
  if (tx_fits (l, d, tlp, bytes))
    return TRUE;
  return refuse_window (port, d, tlp, bytes);
}

void
link_port_send (LinkPort *port, Tlp *tlp)
{
  Link *l = port->link;
  Dir *d = port->tx;
  /* Counted with the ECRC that the TLP is marked with below, as link_port_can_send() counted it. */
  uint32_t bytes = wire_bytes (l, !port->forwards, tlp);
  SIM_INVARIANT (!link_port_tx_full (port) && tx_fits (l, d, tlp, bytes), "link_port_send of a %s without credits or "
                 "space", tlp_kind_name (tlp->kind));
  /* §2.6.1: the transmitter consumes the receiver's credits when it commits to sending. */
  FcClass c = tlp_fc_class (tlp->kind);
  fc_hold (d, c, sim_now (l->engine));
  fc_tx_consume (&d->fc_tx, c, tlp_header_credits (tlp), tlp_data_credits (tlp));
  if (G_UNLIKELY (l->trace != NULL))
    trace_fc (l, d, c, sim_now (l->engine));
  /* ECRC is not payload: it costs wire time and replay space but no data credits (spec §2.6.1). */
  tlp->ecrc = tlp->ecrc || (l->p.ecrc && !port->forwards);
  tlp_fifo_push (&d->q, tlp);
  d->q_len++;
  d->q_bytes += bytes;
  wire_kick (d);
}

/* Credits return only here, not on arrival: a slow consumer is what makes a receive buffer fill (§2.6.1). */
void
link_port_consume (LinkPort *port, const Tlp *tlp)
{
  Link *l = port->link;
  Dir *d = port->rx; /* the direction this port receives on */
  FcClass c = tlp_fc_class (tlp->kind);
  Dir *rev = port->tx; /* this port's own transmitter carries the UpdateFC back */
  if (fc_rx_free (&d->fc_rx, c, tlp_header_credits (tlp), tlp_data_credits (tlp))) {
    rev->fc_due[c] = TRUE;
    wire_kick (rev);
  } else if (l->updatefc_latency_symbols[port->end] && fc_rx_class_finite (&d->fc_rx, c) && !rev->fc_due[c]
             && !sim_event_pending (l->engine, d->fc_lat_timer[c])) {
    /* Eager policy: like the Ack timer, started by the first freed credit not yet on its way back. An UpdateFC
     * already due carries these credits too (it reads the limit when placed), so none is started then. */
    SimEngine *e = l->engine;
    uint64_t due_sym = phy_sym_at_or_after (&l->phy, sim_now (e)) + l->updatefc_latency_symbols[port->end];
    d->fc_lat_timer[c] = sim_schedule_at (e, phy_sym_ps (&l->phy, due_sym), fc_lat_fire, d, c);
  }
}

uint64_t
link_port_credits_left (const LinkPort *port, FcClass cls, FcPart part)
{
  return fc_tx_available (&port->link->d[port->end].fc_tx, cls, part);
}

uint32_t
link_port_tx_queued (const LinkPort *port)
{
  return port->link->d[port->end].q_len;
}

gboolean
link_port_tx_full (const LinkPort *port)
{
  const Link *l = port->link;
  return l->p.tx_queue_tlps && port->tx->q_len >= l->p.tx_queue_tlps;
}

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
      g_set_error (error, LINK_ERROR, LINK_ERROR_INVARIANT, "%s: %u TLPs queued, %u packets in flight", n, d->q_len,
                   d->arr_len);
      return FALSE;
    }
    if (d->acked_seq != d->tx_seq || d->replay_bytes) {
      g_set_error (error, LINK_ERROR, LINK_ERROR_INVARIANT, "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                   " TLPs never acknowledged", n, d->tx_seq - d->acked_seq, d->tx_seq);
      return FALSE;
    }
    for (int c = 0; c < FC_CLASS_COUNT; c++)
      for (int p = 0; p < 2; p++) {
        if (!d->fc_tx.infinite[c][p] && d->fc_tx.consumed[c][p] > d->fc_tx.limit[c][p]) {
          g_set_error (error, LINK_ERROR, LINK_ERROR_INVARIANT, "%s: class %d part %d consumed beyond limit", n, c,
                       p);
          return FALSE;
        }
        if (d->fc_rx.freed[c][p] > d->fc_rx.received[c][p]
            || (!d->fc_rx.infinite[c][p] && fc_rx_occupied (&d->fc_rx, c, p) > d->fc_rx.advertised[c][p])) {
          g_set_error (error, LINK_ERROR, LINK_ERROR_INVARIANT, "%s: class %d part %d receive credits out of range",
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

void
link_inject_fault (Link *link, LinkFault fault, LinkDir dir, uint64_t nth)
{
  link->fault = fault;
  link->fault_dir = dir;
  link->fault_countdown = nth;
  if (fault == LINK_FAULT_LOST_ACK)
    link->errors = link->d[0].errors = link->d[1].errors = TRUE;
}

void
link_inject_lcrc (Link *link, LinkDir dir, uint64_t seq, uint32_t times)
{
  link->errors = link->d[0].errors = link->d[1].errors = TRUE;
  link->lcrc_dir = dir;
  link->lcrc_seq = seq;
  link->lcrc_times = times;
}

LinkErrors
link_errors (const Link *link, LinkDir dir)
{
  return link->d[dir].errs;
}

/* ---- analytic limits ---- */

double
link_theoretical_mbps (int gen, int lanes, uint32_t max_payload_bytes)
{
  /* published-calibration.md §1: per-lane MB/s after 8b/10b, Gen3+ counted without 128b/130b. Deliberately the
   * vendor's naive formula: it must reproduce the published figures (Gen1 x4 → 927), not improve on them. */
  static const double lane_mbps[] = { 0, 250, 500, 1000, 2000, 4000, 8000 };
  if (gen < 1 || gen > 6)
    return 0;
  /* pcie-protocol.md §7: 3-DW header + 8 framing bytes = 20 per TLP. */
  return lanes * lane_mbps[gen] * max_payload_bytes / (max_payload_bytes + 20.0);
}

double
link_theoretical_flit_mbps (int gen, int lanes, uint32_t max_payload_bytes)
{
  /* The per-lane rates of link_theoretical_mbps(); a flit's 256 bytes carry 236 of TLPs (6 DLP, 8 CRC, 6 ECC). */
  double raw = link_theoretical_mbps (gen, lanes, max_payload_bytes) * (max_payload_bytes + 20.0) / max_payload_bytes;
  return raw * 236.0 / 256.0 * max_payload_bytes / (max_payload_bytes + 12.0);
}

/* The parts of the bound: the MB/s of payload a wire with no ordered sets carries in back-to-back MPS TLPs with
 * header_bytes of header, the share of the wire SKP ordered sets take, and one SKP ordered set's duration in ps
 * (EDS included). 0 on parameters phy_init_mode() refuses. */
static double
limit_parts (const LinkParams *params, uint32_t header_bytes, double *os_share, double *skp_ps, double *deferred)
{
  /* Defined on the early return too: callers multiply 0 by them, and 0 x an uninitialised NaN is NaN. */
  *os_share = 0;
  *skp_ps = 0;
  *deferred = 0;
  Phy phy;
  if (!phy_init_mode (&phy, params->gen, params->lanes, params->flit_mode, params->sris, params->skp_interval_symbols,
                      NULL))
    return 0;
  double hdr_ecrc = (double) header_bytes + (params->ecrc ? TLP_ECRC_BYTES : 0);
  double sym_ps = (double) phy.sym_num_ps / (double) phy.sym_den;
  if (phy.flit) {
    /* Flit mode: every slot is on the grid of flits and SKPs; 236 of each flit's 256 bytes carry TLPs, packed
     * back to back with no framing, and DLLPs ride in the DLP bytes. */
    *os_share = (double) phy.skp_symbols * phy.lanes / (double) phy.group_slots;
    *skp_ps = phy.skp_symbols * sym_ps;
    return phy_wire_mbps (&phy) * PHY_FLIT_TLP_BYTES / PHY_FLIT_BYTES * params->max_payload_bytes
           / (params->max_payload_bytes + hdr_ecrc);
  }
  /* A saturating stream: TLPs of MPS + header + framing, all multiples of 4 bytes, so lane placement never pads
   * between them; SKPs take at least their own slots (EDS included, no block padding) once per interval; the
   * stream needs no DLLPs on its own direction (Acks and UpdateFCs travel the other way). */
  double tlp = params->max_payload_bytes + hdr_ecrc + phy.tlp_framing_bytes;
  *os_share = ((double) phy.skp_symbols * phy.lanes + phy.eds_bytes) / ((double) phy.skp_interval_symbols * phy.lanes);
  *skp_ps = (phy.skp_symbols + (double) phy.eds_bytes / phy.lanes) * sym_ps;
  /* SKPs that fall due during a packet wait for its end (skp_catch_up()): one MPS TLP longer than the interval
   * carries that many past its own end. */
  *deferred = floor (tlp / phy.lanes / phy.skp_interval_symbols);
  return phy_wire_mbps (&phy) * params->max_payload_bytes / tlp;
}

double
link_protocol_limit_mbps (const LinkParams *params, uint32_t header_bytes)
{
  /* An upper bound for simulated streams; test-link.c and test-phy.c check it. */
  double os_share, skp_ps, deferred;
  double no_os = limit_parts (params, header_bytes, &os_share, &skp_ps, &deferred);
  return no_os * (1.0 - os_share);
}

/* A window of W holds SKPs due at every interval I (flit mode: on a fixed grid), each placed at the first
 * packet boundary after it is due (at most one TLP later): at least W / I - 2 - D of them lie inside, D the SKPs
 * one MPS TLP longer than I defers past the window's end (0 when a TLP is shorter than I; SRIS intervals are
 * 154 symbols at 8b/10b, shorter than a 512-byte TLP at x1). The payload the window can carry is then at most
 * no_os x (1 - (W / I - 2 - D) S / W) = limit + no_os x (2 + D) S / W, and never more than a wire without
 * ordered sets carries. */
double
link_protocol_limit_window_mbps (const LinkParams *params, uint32_t header_bytes, SimTime window_ps)
{
  double os_share, skp_ps, deferred;
  double no_os = limit_parts (params, header_bytes, &os_share, &skp_ps, &deferred);
  if (window_ps == 0)
    return no_os;
  /* Two for the window's ends, and those the window's last TLP defers past its end. */
  return MIN (no_os, no_os * (1.0 - os_share) + no_os * (2.0 + deferred) * skp_ps / (double) window_ps);
}

/* pcie-protocol.md §6: 10-bit tags give 768 usable values; flit mode (always at Gen6) has 14-bit tags, of which
 * those with Tag[13:10] = 0 are not used as 14-bit tags (spec §2.2.6.2): 2^14 - 2^10 = 15,360. */
uint32_t
link_tags_max (const LinkParams *params)
{
  return params->flit_mode || params->gen == 6 ? 15360 : 768;
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
