/* link.h — a full-duplex PCIe link between two ports of a fabric, modelled in time.
 *
 * Contract (what the rest of pciesim may rely on):
 * - A Link has two ports, named as the spec names the ports a link joins: LINK_DSP, the Downstream Port (a root
 *   port or a switch's downstream port: the end nearer the root complex), and LINK_USP, the Upstream Port (an
 *   endpoint's or a switch's upstream port). Each port transmits on one direction (the DSP downstream, the USP
 *   upstream) and receives on the other, so upstream always means towards the root, whatever the two ends are.
 * - Sending: a user asks link_port_can_send(port, tlp); when TRUE it may call link_port_send(), which consumes the
 *   receiver's flow-control credits at once (spec §2.6.1: the transmitter gates on credits) and takes ownership of
 *   the TLP. The port then serialises it in submission order, after sequence number, framing, lane placement,
 *   SKP ordered sets and DLLPs of higher priority. When can_send was FALSE, the port calls the tx-ready callback
 *   the next time its state changes in a way that may allow sending (credits returned, queue or replay space freed,
 *   TLPs acknowledged: at most 2048 may be unacknowledged, in flit mode min(retry buffer, 511) flits, spec
 *   §3.6.2.1).
 * - Receiving: after the last symbol of a TLP arrives and the receive pipeline latency has passed, the rx callback
 *   receives the TLP and owns it. The receiver calls link_port_consume() when its consumer has taken the TLP out
 *   of the receive buffer; only then are the credits freed and, per spec §2.6.1.2, an UpdateFC DLLP scheduled.
 *   The receiver then frees the TLP with tlp_free() on the link's pool (link_pool()).
 * - Acks: every TLP is acknowledged by the receiving data link layer within the spec's Ack latency limit
 *   (pcie-protocol.md §3), pin to pin, coalesced; Acks free replay-buffer space at the transmitter.
 * - Flit mode (Gen6, or flit_mode): the same contract; framing, DLLPs and ordered sets follow the flit grid
 *   (phy.h), TLPs are packed at most 8 to a flit half, after idle from a 4-DW boundary (flit.c), and a TLP is
 *   delivered once the flit holding its last byte is in.
 * - Errors (ber > 0): TLPs and DLLPs may arrive corrupted; the data link layer recovers (Nak, replay, REPLAY_TIMER,
 *   retrain), so every TLP is still delivered exactly once and in order, only later. Without errors nothing of
 *   this runs and no random number is drawn. link_errors() counts what happened.
 * - Accounting: every picosecond of each direction is attributed to exactly one of payload, TLP overhead
 *   (framing + header + ECRC + LCRC; in flit mode the header and each used flit's DLP, CRC and FEC bytes), DLLP,
 *   ordered set, or idle/padding (and IDLE flits). link_usage() returns the fractions over a window, which always
 *   sum to 1.
 * - Why a direction is idle (stall.h): its StallClock attributes every idle picosecond of the wire to the link's
 *   own refusal of a TLP (credits of which type, replay space, 2048 unacknowledged TLPs, a full transmit queue),
 *   or, when it refuses nothing, to what its sender waits for (the clock set with link_port_set_stall_feeder()).
 *   It costs a few instructions per packet and schedules nothing.
 * - Tracing (link_trace_declare()): every packet as a slice on its direction's wire track, credits and replay
 *   bytes as counters, an arrow from each MRd to its completions. Off, each call is one pointer test.
 * - Parameters are plain values (LinkParams), so the link does not depend on the configuration module.
 */
#pragma once

#include "models/base/model_error.h"
#include "sim/engine.h"
#include "sim/trace.h"
#include "models/proto/fc.h"
#include "models/observe/stall.h"
#include "models/proto/tlp.h"

/* A port's LinkEnd is the LinkDir it transmits on. */
typedef enum { LINK_DSP = 0, LINK_USP = 1 } LinkEnd;
typedef enum { LINK_DOWNSTREAM = 0, LINK_UPSTREAM = 1 } LinkDir;

typedef struct {
  int gen; /* 1..6: 2.5, 5, 8, 16, 32, 64 GT/s (spec Table 1-1); Gen6 always runs flit mode */
  int lanes; /* 1, 2, 4, 8, 12, 16, 32 (x12 and x32 not in flit mode) */
  uint32_t max_payload_bytes; /* MPS, drives the Ack latency limit (pcie-protocol.md §3) */
  SimTime tx_pipeline_ps; /* transmitter PHY/DLL pipeline: TLP accepted -> first symbol on the wire */
  SimTime rx_pipeline_ps; /* receiver PHY/DLL/TL pipeline: last symbol in -> TLP delivered */
  /* Where the two ends are different devices (in a fabric: an endpoint's hard IP against a switch port), by
   * LinkEnd: with end_pipelines[end] set, that end's transmitter and receiver take these instead of the two
   * above. A switch port's receive pipeline is its port-to-port latency (switch.h). */
  gboolean end_pipelines[2];
  SimTime end_tx_pipeline_ps[2], end_rx_pipeline_ps[2];
  /* Of the receive pipeline, the part after the data link layer (the transaction layer's), by LinkEnd: DLLPs act
   * and TLPs are checked and acknowledged (spec §3.6.3.1: AckNak_Seq_Num is NEXT_RCV_SEQ - 1) that much before a
   * TLP is delivered. 0 = none: the data link layer sits at the end of the pipeline. At most the pipeline. The
   * link takes at least the receive pipeline less (the Ack latency limit less the end's transmit pipeline): an Ack
   * waits for the check and must leave the pins within the limit (link_new()). */
  SimTime rx_tl_pipeline_ps[2];
  SimTime flight_ps; /* channel propagation, each way */
  uint32_t replay_buffer_bytes; /* transmit replay buffer; 0 = unlimited */
  uint32_t tx_queue_tlps; /* TLPs the transaction layer may queue ahead of the wire; 0 = unlimited */
  SimTime updatefc_period_ps; /* periodic UpdateFC for finite types; spec: at least every 30 us */
  /* By LinkEnd: advertised by that end's receiver, so rx_credits[LINK_DSP] limits what the USP sends upstream. */
  FcCredits rx_credits[2];
  /* Added by the link model (zero keeps the documented default): */
  uint32_t skp_interval_symbols; /* symbol times between SKP ordered sets; 0 = spec minimum interval (phy.c) */
  uint32_t updatefc_hdr_threshold_credits; /* eager UpdateFC once this many header credits were freed; 0 = off */
  uint32_t updatefc_data_threshold_credits; /* the same for data credits; 0 = spec §2.6.1.2 rule only */
  /* Eager UpdateFC at most this many symbol times after credits are freed, coalescing like Acks; 0 = off.
   * LINK_UPDATEFC_LATENCY_RECOMMENDED selects spec Table 2-54 (the Ack latency limit values, pcie-protocol.md §3). */
  uint32_t updatefc_latency_symbols;
  /* By LinkEnd: that end's receiver uses end_updatefc_latency_symbols[end] (same meaning) instead (a switch port's
   * own policy, switch.h). */
  gboolean end_updatefc[2];
  uint32_t end_updatefc_latency_symbols[2];
  /* Acknowledge at the latest after this many TLPs, even before the Ack latency timer expires (the spec sets only
   * an upper bound on Ack latency, §3.6.3.1; many designs Ack more often). 0 = timer only. By LinkEnd: that
   * end's receiver. */
  uint32_t ack_every_tlps[2];
  /* ECRC generation enabled (spec §2.7): every TLP sent on this link carries a 4-byte end-to-end CRC, appended by
   * the sending transaction layer whoever built the TLP (a hard IP adds it after the application interface). */
  gboolean ecrc;
  /* Flit mode at Gen1-5 (spec §4.2.3.3; Gen6 runs it whatever this says): 256-byte flits, no per-TLP framing,
   * DLLPs in the flits' DLP bytes, SKPs on a fixed flit count. */
  gboolean flit_mode;
  /* Separate reference clocks (SRIS): the short SKP intervals of spec §4.2.8 (pcie-protocol.md §4). */
  gboolean sris;
  /* Link errors (pcie-protocol.md §10). ber: per-lane bit error rate, 0 = no errors and no random draws. */
  double ber;
  /* Flit mode: the fraction of error events that hit the same bytes of every lane (phy_flit_error_prob()). */
  double flit_lane_correlation;
  /* Flit mode: the receivers answer a lost flit with a selective Nak, so the transmitter resends that flit alone and
   * the good flits after it wait in the receiver (spec §4.2.3.4.2, pcie-protocol.md §10); else a standard Nak, and
   * every flit from the lost one on goes again. */
  gboolean flit_selective_nak;
  SimTime retrain_ps; /* LTSSM Recovery after a REPLAY_NUM rollover, link idle; 0 = LINK_RETRAIN_PS_DEFAULT */
  uint32_t replay_timer_symbols; /* REPLAY_TIMER limit; 0 = the spec's (link.c) */
  /* The highest rate both ports support, as a generation (>= gen; 0 = gen): it, not the trained rate, picks the
   * non-flit REPLAY_TIMER limit (spec §3.6.2.1). */
  int supported_gen;
  /* The error draws of direction d come from sim_rand_new (engine, LINK_RAND_ID (rand_index, d)): one stream per
   * link direction, independent of every other component. A fabric numbers its links. */
  uint32_t rand_index;
} LinkParams;

/* UNCONFIRMED (pcie-protocol.md §10: "microseconds, no primary figure"): a Recovery without equalisation. */
#define LINK_RETRAIN_PS_DEFAULT (1 * SIM_US)
#define LINK_RAND_ID(index, dir) (UINT32_C (0x4c4b0000) + 2u * (index) + (uint32_t) (dir))

#define LINK_UPDATEFC_LATENCY_RECOMMENDED UINT32_MAX

typedef struct Link Link;
typedef struct LinkPort LinkPort;


/* Checks ranges (gen, width, MPS, period <= 30 us). link_new() aborts on parameters this rejects. */
gboolean link_params_validate (const LinkParams *params, GError **error);

typedef void (*LinkRxFn) (void *ctx, LinkPort *port, Tlp *tlp);
typedef void (*LinkTxReadyFn) (void *ctx, LinkPort *port);
/* A TLP has been placed on the wire; its last symbol leaves the transmitter at end_ps (>= now). The TLP is still
 * the link's: the callback may read it but must not keep it. */
typedef void (*LinkTxPlacedFn) (void *ctx, LinkPort *port, const Tlp *tlp, SimTime end_ps);

Link *link_new (SimEngine *engine, const LinkParams *params, TlpPool *pool);
void link_free (Link *link);

LinkPort *link_port (Link *link, LinkEnd end);
TlpPool *link_pool (Link *link);
/* The parameters the link was made with (defaults filled in: the UpdateFC period, the retrain time). */
const LinkParams *link_params (const Link *link);
void link_port_set_rx (LinkPort *port, LinkRxFn fn, void *ctx);
void link_port_set_tx_ready (LinkPort *port, LinkTxReadyFn fn, void *ctx);
void link_port_set_tx_placed (LinkPort *port, LinkTxPlacedFn fn, void *ctx);
/* Cut-through (a switch's ingress port): the rx callback gets each TLP once its header is in, i.e. after the
 * symbol time holding the header's last byte plus the far transmit pipeline, flight and this end's receive
 * pipeline, rather than after its last symbol; the data link layer still acknowledges it by its last symbol's
 * arrival. While the callback runs, link_port_rx_tail_ps() says when the whole TLP (LCRC included) is in, as a
 * delivery without this option would have it. Applies on links without flit mode and without modelled errors
 * (where a TLP is checked whole before anything may act on it); elsewhere delivery stays whole-TLP and the tail
 * time is the delivery time. */
void link_port_set_rx_at_header (LinkPort *port, gboolean on);
/* A port that forwards TLPs other components made (a switch's): ECRC is the originator's (spec §2.7), so the
 * link's `ecrc` adds none to what this port sends; a TLP keeps the ECRC it came with. */
void link_port_set_forwarding (LinkPort *port, gboolean on);
/* A sender whose offers depend on the link's state and the time alone (a switch's arbiter: anything new it gets it
 * offers at once) may promise, after a round of offers, that offering the same again before `until` would be
 * refused again for the same causes unless the link changed in a way one of them waits for (a TLP leaving the
 * transmit queue, an Ack, an UpdateFC). Until then the link calls its tx-ready only for such a change; 0 takes
 * the promise back. Outside flit mode and errors only: there every change calls it, as without the promise. */
void link_port_set_refusals_stand (LinkPort *port, SimTime until);
SimTime link_port_rx_tail_ps (const LinkPort *port);

gboolean link_port_can_send (LinkPort *port, const Tlp *tlp);
void link_port_send (LinkPort *port, Tlp *tlp);
void link_port_consume (LinkPort *port, const Tlp *tlp);
/* Credits of one type the far receiver still grants this port's transmitter (UINT64_MAX when infinite): what a
 * sender that waits names in the deadlock watchdog's message. */
uint64_t link_port_credits_left (const LinkPort *port, FcClass cls, FcPart part);
/* TLPs accepted by link_port_send() that have not started on the wire yet. */
uint32_t link_port_tx_queued (const LinkPort *port);
/* The transmit queue holds tx_queue_tlps TLPs: link_port_can_send() then refuses every TLP for that reason alone,
 * before it looks at the TLP, and a second refusal in a row changes nothing the first did not. A sender with many
 * candidates (a switch's arbiter) asks this once instead of offering each. No side effect. */
gboolean link_port_tx_full (const LinkPort *port);
LinkEnd link_port_end (const LinkPort *port);
/* How long `tlp` keeps this link's serialiser busy, framing included (no padding, SKP or DLLP), as a forwarding
 * port sends it (its own ECRC, none added): what a cut-through switch compares between its ingress and egress. */
SimTime link_tlp_wire_ps (const Link *link, const Tlp *tlp);
/* Ack latency limit of this link in symbol times (pcie-protocol.md §3), and one symbol time's start in ps. */
uint32_t link_ack_limit_symbols (const Link *link);
SimTime link_symbol_ps (const Link *link, uint64_t n);

/* Per-direction byte-time accounting. */
typedef struct {
  double payload, tlp_overhead, dllp, ordered_sets, idle; /* fractions, sum 1 */
} LinkUsage;

/* Error and recovery counts of one direction since link-up (pcie-protocol.md §10), all zero without errors.
 * tlp_errors: TLP transmissions that arrived corrupted (LCRC, or a lost flit) and were discarded; dllp_errors:
 * DLLPs on this direction discarded for a bad CRC (or lost with their flit); naks: Naks this direction's
 * receiver sent; replays: replays this direction's transmitter started (after a Nak or a timeout), of which
 * replay_timeouts by the REPLAY_TIMER; retrains: REPLAY_NUM rollovers it caused; replayed_tlps and
 * replayed_bytes: what the replays sent again (wire bytes), the goodput lost (flit mode: whole flits resent, and the
 * TLPs with bytes in them); flit_errors: flit mode, flits holding TLP bytes that FEC could not correct. */
typedef struct {
  uint64_t tlp_errors, dllp_errors, naks, replays, replay_timeouts, retrains;
  uint64_t replayed_tlps, replayed_bytes, flit_errors;
  uint64_t framing_errors; /* non-flit 128b/130b: packets this direction's receiver lost to a framing error, each a
                            * retrain (counted in retrains; the TLPs among them are not in tlp_errors) */
} LinkErrors;
LinkErrors link_errors (const Link *link, LinkDir dir);

/* Counts since link_stats_reset() (or link-up); TLPs/DLLPs/SKPs counted when placed on the wire. */
typedef struct {
  uint64_t tlps, dllps, acks, updatefcs, skps;
  uint64_t payload_bytes; /* TLP payload delivered on this direction */
} LinkCounters;

/* Restart the accounting window of both directions at the current time. */
void link_stats_reset (Link *link);
LinkUsage link_usage (const Link *link, LinkDir dir);
LinkCounters link_counters (const Link *link, LinkDir dir);

/* --- why: stalls, credit round trips, deliveries, traces ------------------------------------------------- */

/* The idle-cause clock of direction `dir` (stall.h). Read it with stall_read() at the current time. */
StallClock *link_stall_clock (Link *link, LinkDir dir);
/* What the user of `port` waits for when it has nothing to send: the port's direction takes that cause when the
 * link refuses nothing. `refine` (may be NULL) sharpens a "waiting for the far end" cause (stall.h). */
void link_port_set_stall_feeder (LinkPort *port, StallClock *feeder, StallClock *refine);
/* Why the last link_port_can_send() on `port` said no. */
StallCause link_port_refused (const LinkPort *port);

/* Credits of direction `dir`'s transmitter since link-up, per [class][part]: consumed, and held (consumed and not
 * yet returned by an UpdateFC) integrated over time, in credit x ps up to now. Over a window, held / consumed is
 * the credits' mean round trip (Little's law). advertised 0 = infinite. */
typedef struct {
  uint64_t consumed[FC_CLASS_COUNT][2];
  uint64_t held_ps[FC_CLASS_COUNT][2];
  uint32_t advertised[FC_CLASS_COUNT][2];
} LinkCreditStats;
LinkCreditStats link_credit_stats (Link *link, LinkDir dir);

/* Called with every TLP the link delivers to `port`, just before the port's rx callback (which then owns it).
 * For measurements (a posted write's one-way latency); the observer must not keep or change the TLP. */
typedef void (*LinkRxObserverFn) (void *ctx, const Tlp *tlp);
void link_port_set_rx_observer (LinkPort *port, LinkRxObserverFn fn, void *ctx);

/* Declare both directions under `name` ("link0": "link0.down", "link0.up"; models/observe/pcie_trace.h's signals) and trace
 * from now on. Between sim_trace_open() and sim_trace_start(); a NULL trace does nothing. In flit mode DLLPs ride
 * in the flits' DLP bytes and have no slice of their own; an SKP ordered set placed after the fact (it fell due
 * while the wire was idle) is written at its time in JSON but at the present in the VCD, which cannot go back. */
void link_trace_declare (Link *link, SimTrace *trace, const char *name);

/* End-of-run checks: nothing unacknowledged, credits within [0, advertised], queues empty. Sets error. */
gboolean link_check_invariants (const Link *link, GError **error);
/* What each direction waits for (blocked sender, queue, unacknowledged TLPs, replay space, credits left of each
 * finite type), appended to `out` in one line; idle directions are left out. For the deadlock watchdog. */
void link_describe_wait (const Link *link, GString *out);

/* Test hook: corrupt the nth (0-based) packet of one kind on direction `dir`, so tests can see the continuous
 * checks catch it: SKIP_SEQ gives a TLP the wrong sequence number; EXTRA_CREDIT makes an UpdateFC grant one
 * header credit more than the receiver freed. Never called in a real run. */
typedef enum {
  LINK_FAULT_NONE,
  LINK_FAULT_SKIP_SEQ,
  LINK_FAULT_EXTRA_CREDIT,
  LINK_FAULT_LOST_ACK,
  LINK_FAULT_FRAMING,
} LinkFault;
void link_inject_fault (Link *link, LinkFault fault, LinkDir dir, uint64_t nth);
/* Test hooks of the error model (they turn its machinery on, as a ber > 0 does): LINK_FAULT_LOST_ACK drops the
 * nth Ack on `dir` (a bad DLLP CRC); LINK_FAULT_FRAMING has the nth TLP transmission on `dir` meet a framing error
 * (the link retrains); link_inject_lcrc corrupts the TLP with sequence count `seq` on `dir` in its
 * first `times` transmissions (the original and then replays). Call before any traffic. */
void link_inject_lcrc (Link *link, LinkDir dir, uint64_t seq, uint32_t times);

/* The most non-posted requests one requester may have outstanding on this link, by the widest tag the link's
 * mode carries (spec §2.2.6.2, pcie-protocol.md §6): 10-bit tags, 768 usable values (LINK_TAGS_10BIT); 14-bit tags
 * in flit mode, those with Tag[13:10] = 0 not used as 14-bit tags: 2^14 - 2^10 = 15,360 (LINK_TAGS_14BIT). The
 * constants are for the config checks, which must refuse what this would refuse, at the node that asks for it. */
#define LINK_TAGS_10BIT 768u
#define LINK_TAGS_14BIT 15360u
uint32_t link_tags_max (const LinkParams *params);

/* The vendor "theoretical maximum" (published-calibration.md §1): lanes x per-lane MB/s after 8b/10b
 * (Gen3 counted as 1000, Gen4 2000, Gen5 4000 MB/s) x MPS / (MPS + 20). */
double link_theoretical_mbps (int gen, int lanes, uint32_t max_payload_bytes);
/* The same naive bound for flit mode, which has no per-TLP framing to charge (spec §4.2.3.4): lanes x per-lane
 * MB/s x 236 TLP bytes per 256-byte flit x MPS / (MPS + a 3-DW header). No DLLPs, ordered sets or padding, so
 * like the vendor formula it is above anything the protocol allows. */
double link_theoretical_flit_mbps (int gen, int lanes, uint32_t max_payload_bytes);
/* The most a saturating stream of MPS-sized TLPs with header_bytes of header (12 for 3-DW, 16 for 4-DW) can carry
 * on this link with its framing, encoding, lane placement and SKP ordered sets: a long-run bound, over whole SKP
 * intervals. Posted writes have the MWr header of their addresses; read data comes back in CplDs, whose header
 * is always 3 DW (pcie-protocol.md §2). */
double link_protocol_limit_mbps (const LinkParams *params, uint32_t header_bytes);
/* The same bound for a measurement of window_ps: a finite window may hold fewer SKP ordered sets than its
 * long-run share (up to two fewer, and those one TLP longer than the SKP interval defers past the window's end),
 * so a short one may carry slightly more; it never exceeds a wire without
 * ordered sets (window_ps 0 gives that). What a simulated figure is checked against. */
double link_protocol_limit_window_mbps (const LinkParams *params, uint32_t header_bytes, SimTime window_ps);
