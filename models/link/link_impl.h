/* link_impl.h — the link's private structures and the helpers its files share (link.c: the hot path,
 * serialiser and receiver; link_setup.c: parameters and construction; flit.c: flit mode; link_errors.c: the error
 * model and recovery; link_stats.c: accounting, invariants, why and traces; link_limits.c: analytic limits).
 *
 * Contract: nothing outside models/link*.c and models/link/flit.c includes this; the rest of pciesim sees link.h only.
 * The inline helpers are the per-packet ones the split files all need; keeping them inline here leaves the hot
 * path's code as it was in one file.
 */
#pragma once

#include <math.h>

#include "models/proto/fc.h"
#include "models/link/link.h"
#include "models/link/phy.h"
#include "models/observe/pcie_trace.h"

/* Spec §3.6.2.1 (pcie-protocol.md §10): NEXT_TRANSMIT_SEQ - ACKD_SEQ stays below 2048. */
#define LINK_SEQ_WINDOW 2048u
/* Spec §3.6.2.1 (pcie-protocol.md §10, flit mode): flit sequence numbers are 10 bits and a transmitter keeps at
 * most MAX_UNACKNOWLEDGED_FLITS = min(its retry buffer in flits, 511) unacknowledged (flit.c). */
#define LINK_FLIT_WINDOW 511u
/* A flit number that is none (flit.c: no flit of the TLP lost). */
#define FLIT_NONE UINT64_MAX
/* Spec §3.6.2.1 (pcie-protocol.md §10): the simplified REPLAY_TIMER limit, required in non-flit mode of a port
 * that supports 16 GT/s or more, is 24,000 to 31,000 symbol times (Extended Synch clear). Where in the range a
 * port sits is its designer's choice (ASSUMPTION): the low end, the soonest a compliant port may replay. */
#define LINK_REPLAY_SIMPLIFIED_SYMBOLS 24000u
/* Spec §2.6.1.2 (pcie-protocol.md §3): every finite credit type is refreshed at least every 30 us. */
#define UPDATEFC_PERIOD_MAX_PS (30 * SIM_US)

typedef enum { ARR_TLP, ARR_ACK, ARR_NAK, ARR_UPDATEFC } ArrivalKind;
/* Arrival.bad: a CRC error is the data link layer's (Nak, or a DLLP dropped); a framing error the physical
 * layer's (spec §4.2.2.3.5: the link goes to Recovery). */
enum { ARR_BAD_CRC = 1, ARR_BAD_FRAMING = 2 };

/* A packet on its way to the far side. DLLPs carry absolute counts, not the spec's modular fields, so a later one
 * always supersedes an earlier one and nothing needs wrap handling. */
typedef struct {
  SimTime at; /* the far side has it: end of its last symbol time + tx pipeline + flight + rx pipeline */
  uint8_t kind; /* ArrivalKind; bytes rather than enums keep the FIFO entry at 40 bytes */
  uint8_t cls; /* FcClass */
  uint8_t bad; /* arrives corrupted (error model): 0, ARR_BAD_CRC (LCRC or DLLP CRC, a lost flit), ARR_BAD_FRAMING */
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
  /* What the refusals since the last tx-ready wait for (PORT_WAIT_* bits; all of them with flit mode or errors),
   * and until when the sender says they stand (link_port_set_refusals_stand(); 0: no such promise). */
  uint8_t waits;
  SimTime stands_until;
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
  /* TLPs past the data link layer in the transaction layer's pipeline (Link.tl_pipe_ps; empty when it is 0):
   * Arrivals again, `at` their delivery. Same delay for all, so a FIFO with one event. */
  Arrival *tlq;
  uint32_t tlq_cap, tlq_head, tlq_len;
  SimEventId tlq_ev;
  FcRx fc_rx;
  uint64_t rx_seq; /* TLPs received */
  SimTime rx_whole_ps; /* when the last TLP received is in whole, checked (later than now only at a cut-through port) */
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
  SimTime *rpin; /* beside rtlp: when each TLP's last symbol passed the pins, last sent (REPLAY_TIMER) */
  uint32_t replay_num;
  SimEventId replay_ev;
  SimTime replay_due_ps; /* when replay_ev fires (a Recovery holds it, retrain()) */
  gboolean nak_scheduled;
  GRand *rand;
  uint64_t drawn_flit; /* flit mode: flits up to here have had their error drawn, the last one bad or not */
  gboolean drawn_bad;
  LinkErrors errs;
  /* Flit mode: the next flit whose DLP bytes can take an Ack/Nak, and another DLLP (one of each per flit, §3);
   * the next flit whose overhead is not yet charged to the accounting. */
  uint64_t ack_flit, dllp_flit, charged_flit;
  /* Flit packing (flit.c): the flit half (flit × 2 + half) the last TLP placed ended in and how many TLPs have
   * bytes in it (at most 8, spec §4.2.3.4.1); the unacknowledged flits: flits that held TLP bytes so far, the
   * last of them, and the number (among those) of each unacknowledged TLP's first flit, beside the replay ring. */
  uint64_t pack_half;
  uint32_t pack_count;
  uint64_t *rflit;
  uint64_t tlp_flits, last_tlp_flit;
  /* Flit mode with errors, beside rflit: each unacknowledged TLP's last flit (numbered so), its first lost flit
   * (FLIT_NONE: none) and when it reached, or reaches, the far data link layer last; a replay owed (replay_pos
   * below the unacknowledged TLPs) resends flits from replay_from_flit, all of them or (replay_selective) that one
   * alone (flit.c). Receiver: the lost flit the Nak it owes names, + 1 (0: none known). */
  uint64_t *rlast, *rlost;
  SimTime *rat;
  uint64_t replay_from_flit, nak_flit;
  gboolean replay_selective;
  uint64_t retrain_end_slot; /* nothing goes on the wire before this slot (a retrain) */
  /* Non-flit 128b/130b framing errors (link_errors.c): the wire up to this slot has had its framing drawn, and the
   * DLLP just placed met one (read by the DLLP's build). */
  uint64_t fr_slot;
  uint8_t dllp_framing;

  TraceLinkDir tr; /* valid when Link.trace is set */
};

struct Link {
  SimEngine *engine;
  LinkParams p;
  TlpPool *pool;
  Phy phy;
  uint32_t ack_limit_symbols; /* pcie-protocol.md §3; fixed by generation, width and MPS */
  uint32_t updatefc_latency_symbols[2]; /* by receiving LinkEnd, resolved from LinkParams; 0 = off */
  /* By LinkEnd: the transmit pipeline, the receive pipeline up to the data link layer (DLLPs' whole latency), and
   * the transaction layer's part after it (TLPs only, LinkParams.rx_tl_pipeline_ps, or more: link_new()). */
  SimTime tx_pipe_ps[2], rx_pipe_ps[2], tl_pipe_ps[2];
  SimTime latency_ps[2]; /* by LinkDir, serialiser end -> far data link layer: tx pipeline + flight + rx_pipe_ps */
  /* Per receiving direction: whether TLPs start Ack timers. Not for a receiver that Acks every TLP once checked:
   * its count trigger always comes first, and a timer would only be cancelled. */
  gboolean ack_timer[2];
  /* Error model: on with ber > 0 or an injected error; otherwise none of its code runs and nothing is drawn.
   * Dir.errors copies it. */
  gboolean errors;
  /* What link_port_can_send() compares with: TLPs accepted and unacknowledged (the 2048 window, or none in flit
   * mode) and their wire bytes (the replay buffer, and flit mode's window); UINT64_MAX = no limit. */
  uint64_t window_tlps, window_bytes;
  uint64_t window_flits; /* flit mode: MAX_UNACKNOWLEDGED_FLITS (flit.c); else unused */
  double log_q; /* log (1 - ber): n line bits survive with exp (n log_q) */
  double bits_per_byte; /* line bits per byte: 10 at 8b/10b, else 8 */
  double recovery_bytes; /* the wire bytes (every lane) of retrain_ps: a Recovery's reach back from a packet */
  double p_flit_bad, p_dllp_bad;
  uint32_t replay_timer_symbols;
  /* The last Recovery (retrain()): REPLAY_TIMER holds its value from recovery_from_ps to recovery_to_ps. */
  SimTime recovery_from_ps, recovery_to_ps;
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
static inline gboolean
fault_hits (Link *l, LinkFault kind, LinkDir dir)
{
  return l->fault == kind && l->fault_dir == dir && l->fault_countdown-- == 0;
}

/* Shared between the link's files (defined in the file named). */
/* link.c */
void arr_grow (Dir *d);
void arr_fire (SimEngine *engine, void *ctx, uint64_t arg);
void ack_timer_start (Dir *d, SimTime check_ps);
void ack_left_out (Dir *d);
void wire_kick (Dir *d);
void skp_catch_up (Dir *d, uint64_t now_sym);
/* flit.c */
void arr_insert_sorted (Dir *d, const Arrival *a);
void flit_dllps (Dir *d);
void flit_place_tlp (Dir *d, uint64_t base, uint32_t bytes, uint64_t seq, PhyPlacement *pl);
void flit_replay_grow (Dir *d, uint32_t old_cap, uint32_t cap);
gboolean flit_window_fits (const Link *l, const Dir *d, uint32_t bytes);
void flit_replay_place (Dir *d, uint64_t base);
void flit_nak (Dir *d, const Arrival *a);
double flit_payload_per_flit (uint32_t tlp_bytes, uint32_t payload_bytes);
/* link_errors.c */
uint8_t tlp_draw_bad (Dir *d, uint32_t bytes, const PhyPlacement *pl, uint64_t seq);
void dllp_draw_framing (Dir *d, const PhyPlacement *pl);
void framing_error (Dir *d);
void replay_timer_start (Dir *d, SimTime from_ps);
Tlp *tlp_copy (Link *l, const Tlp *t);
void replay_start (Dir *d, gboolean timeout);
gboolean dll_accept (Dir *d, const Arrival *a);
/* link_stats.c */
void trace_fc (Link *l, Dir *d, FcClass c, SimTime now);
void trace_tlp (Link *l, Dir *d, const Tlp *t, const PhyPlacement *pl, gboolean replayed);

/* ---- per-packet helpers ---- */

/* Credits held (consumed, not yet returned) integrated up to now, before class c's consumed or limit changes. */
static inline void
fc_hold (Dir *d, FcClass c, SimTime now)
{
  const FcTx *tx = &d->fc_tx;
  SimTime dt = now - d->fc_t[c];
  d->fc_t[c] = now;
  for (int p = 0; p < 2; p++)
    if (!tx->infinite[c][p])
      d->fc_area[c][p] += (tx->consumed[c][p] + d->fc_rx.advertised[c][p] - tx->limit[c][p]) * dt;
}

/* The replay ring's slot of unacknowledged TLP `seq` (the rings beside it share it). */
static inline uint32_t
replay_slot (const Dir *d, uint64_t seq)
{
  return (d->replay_head + (uint32_t) (seq - d->acked_seq)) & (d->replay_cap - 1);
}

/* Start of a slot in ps, exactly (floor): slot / lanes symbol times. Two packets sharing a symbol time (x8, x16)
 * meet at a slot, so their slices never overlap. */
static inline SimTime
slot_ps (const Phy *phy, uint64_t slot)
{
  /* Two per packet (stall_busy()): at every width but x12 the divisor is a power of two, and a shift gives the
   * same floor as the division, at a fraction of its latency. */
  if (G_LIKELY (phy->slot_den_shift >= 0))
    return slot * phy->sym_num_ps >> phy->slot_den_shift;
  return slot * phy->sym_num_ps / (phy->sym_den * phy->lanes);
}

static inline uint64_t
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

/* What an Ack placed now acknowledges: the TLPs its data link layer has checked, AckNak_Seq_Num = NEXT_RCV_SEQ - 1
 * (spec §3.6.3.1, pcie-protocol.md §3), read as it goes on the wire, so TLPs checked while it waited for the wire
 * ride along. A TLP a cut-through port took at its header (receive_tlp()) is checked only once its tail is in: the
 * last one received, while its tail is on its way. TLPs still in the receive pipeline are never covered; the first
 * of them starts the Ack timer again when it is checked (receive_tlp()). */
static inline __attribute__ ((always_inline)) uint64_t
ack_count (const Dir *d, SimTime now)
{
  return d->rx_seq - (d->rx_whole_ps > now);
}

/* Error model: whether a DLLP just placed on d arrives with a bad CRC (or in a lost flit), or met a framing error
 * (drawn as it was placed, dllp_draw_framing()). */
static inline uint8_t
dllp_draw_bad (Dir *d)
{
  if (d->dllp_framing) {
    d->dllp_framing = 0;
    return ARR_BAD_FRAMING;
  }
  return d->link->p.ber > 0 && g_rand_double (d->rand) < d->link->p_dllp_bad ? ARR_BAD_CRC : 0;
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
  if (G_UNLIKELY (kind == ARR_NAK) && d->flit) {
    /* Flit mode: the Nak names the lost flit; a selective one asks for it alone (flit.c). */
    a.b = o->nak_flit;
    a.cls = d->link->p.flit_selective_nak && o->nak_flit;
  }
  if (G_UNLIKELY (a.a < o->rx_seq))
    ack_left_out (o);
  if (d->errors) {
    a.bad = dllp_draw_bad (d);
    if (!a.bad && kind == ARR_ACK && fault_hits (d->link, LINK_FAULT_LOST_ACK, d->dir))
      a.bad = ARR_BAD_CRC;
  }
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
