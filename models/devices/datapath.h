/* datapath.h — the endpoint's application-layer datapath: the Avalon-ST-like streaming interface between the PCIe
 * hard (or soft) IP and the user's logic (here the chaining DMA), in beats of an application clock.
 *
 * Contract:
 * - Transmit: clients (the DMA engines) register in priority order and are pulled, never pushed: when the
 *   datapath is free the arbiter asks each client to describe its next TLP (peek), skips clients whose TLP the
 *   link cannot take now (flow-control credits or queue space: link_port_can_send), and takes one TLP from the
 *   winner. The TLP then occupies the interface for avst_beats() beats (after arb_switch_cycles idle beats when
 *   the winner differs from the previous TLP's), is followed by tx_gap_cycles idle beats, and is handed to
 *   link_port_send() at the end of its last beat (store-and-forward into the IP's transmit buffer: the IP cannot
 *   put a TLP on the wire faster than the application delivers it). Clients call app_kick() when they get new work.
 * - Arbitration: APP_ARB_ROUND_ROBIN rotates among ready clients starting after the last winner, so none
 *   starves; APP_ARB_PRIORITY always picks the lowest-numbered ready client. Both skip a client blocked on
 *   credits, as the hard IP's per-type credit signals (tx_cred) let the application do. Each DMA engine is a
 *   client; AN-456's configs use endpoint.arbitration: read_priority (configs/benchmarks/an456.yaml, calibrated
 *   on Tables 8 and 11), which is APP_ARB_PRIORITY with each channel's read engine registered first
 *   (dma_chain.c).
 * - Receive: TLPs from the link (whose rx_pipeline_ps already holds the IP's receive latency) pass one at a
 *   time through the receive interface, each taking avst_beats() + rx_overhead_cycles + rx_overhead_bytes in
 *   beats (rounded up; 256-bit segments with straddle). At the end of its beats
 *   the handler sees the TLP, then the app calls link_port_consume() (the IP's receive buffer slot is free only once the application has read it)
 *   and frees it. Handlers must not keep or free the TLP.
 * - Every beat starts on an edge of the application clock; times are integer picoseconds. With straddle a TLP
 *   starts on a 256-bit segment boundary: the clock period is split into width / 256 equal segment times
 *   (app_unit_ps()), and a TLP occupies whole segments.
 * - No allocation while running: app_add_client() grows the client table (no fixed limit: an endpoint has as
 *   many clients as its config gives it flows or DMA engines) while the system is built; queues are intrusive
 *   lists through Tlp.next.
 * - Why (stall.h): the transmit side's StallClock (app_stall_clock()) is busy from a grant to the end of the
 *   TLP's gap, and idle otherwise for: the link's refusal of the TLP it holds or of a client's probe, else the
 *   first client (registration order) that says why it has nothing (AppTxClient.why). While busy its cause is
 *   STALL_DATAPATH, so the link direction it feeds (its port's, set on attach) is idle for the datapath then.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/fabric/fabric.h"
#include "models/link/link.h"

typedef enum {
  APP_ARB_ROUND_ROBIN,
  APP_ARB_PRIORITY,
} AppArbitration;

typedef struct {
  uint32_t width_bits; /* interface width: 64, 128, 256, 512 or 1024 (pcie-protocol.md §7 lists which IP uses
                        * which; Gen4/5 hard IPs: 512 or 1024) */
  double clock_mhz; /* application clock: 62.5, 125 or 250 MHz for the hard IPs of §7; soft IP its own */
  gboolean header_own_beat; /* TRUE: header never shares a beat with data (256-bit Avalon-MM DMA style) */
  uint32_t tx_gap_cycles; /* idle beats after each transmitted TLP: arbiter/state-machine turnaround */
  AppArbitration arbitration; /* transmit arbitration between clients */
  uint32_t arb_switch_cycles; /* idle beats when the grant moves to a different client than the last TLP's:
                               * the transmit multiplexer's handshake and pipeline refill between the DMA
                               * modules (AN-456's chaining DMA muxes its read and write engines onto one
                               * Avalon-ST source). Costs twice per read request slipped between writes, so it
                               * weighs on writes in simultaneous mode only, and more at a slower clock. */
  uint32_t rx_overhead_cycles; /* extra beats per received TLP: the DMA's completion bookkeeping */
  uint32_t rx_overhead_bytes; /* extra interface bytes per received TLP, rounded up to beats: a per-TLP cost that
                               * is a fixed width of the interface rather than a fixed number of cycles */
  /* Straddle (512- and 1024-bit only): a TLP may start at any 256-bit boundary of a beat, so two (four at 1024
   * bits) TLPs share a beat, in both directions. Off, every TLP starts a fresh beat and a 512-bit interface at
   * 250 MHz carries one 256-byte TLP per 5 beats (12.8 GB/s), below a Gen4 x16 link. See datapath.c for the rule and
   * its sources. */
  gboolean straddle;
} AppParams;

typedef struct App App;

/* app_params_check() refuses parameters with MODEL_ERROR_PARAM. */

/* The datapath's transmit clients are those of a requesting component's transmit side (fabric.h). */
typedef FabricTxClient AppTxClient;

typedef void (*AppRxFn) (void *ctx, const Tlp *tlp);

/* Validates params (width 64/128/256, clock > 0). */
gboolean app_params_check (const AppParams *p, GError **error);

/* TLPs come from and go back to `pool` (the link's). `port` is the link port the datapath feeds; NULL until
 * app_attach() when the app is made before its link. The app is the port's only user, but it does not take over
 * the port's callbacks (a fabric component owns those): whoever does passes them on to app_link_rx() and
 * app_link_tx_ready(), which have the link callbacks' types so that a test can also set them directly. */
App *app_new (SimEngine *engine, const AppParams *params, LinkPort *port, TlpPool *pool);
void app_attach (App *app, LinkPort *port);
void app_free (App *app);
/* The port's rx and tx-ready callbacks, ctx = the App. */
void app_link_rx (void *app, LinkPort *port, Tlp *tlp);
void app_link_tx_ready (void *app, LinkPort *port);
/* Clients are numbered in registration order; that order is the priority for APP_ARB_PRIORITY. */
guint app_add_client (App *app, const AppTxClient *client, void *ctx);
void app_set_rx (App *app, AppRxFn fn, void *ctx);
/* A client has new work (or was unblocked): the arbiter looks again if the datapath is idle. */
void app_kick (App *app);

SimTime app_cycle_ps (const App *app);
/* The time of the interface's smallest unit: a beat, or with straddle one 256-bit segment of a beat. Beat counts
 * below (app_tx_beats, app_tx_kind_beats, app_rx_beats) are in these units. */
SimTime app_unit_ps (const App *app);
/* The link port the datapath feeds (for clients that need wire-level notifications). */
LinkPort *app_port (const App *app);
/* Beats the datapath spent transmitting / receiving (utilisation figures for reports). */
uint64_t app_tx_beats (const App *app);
/* Idle beats spent on arb_switch_cycles turnarounds. */
uint64_t app_tx_switch_cycles (const App *app);
/* Transmit beats of TLPs of one kind (e.g. what read requests take from writes on a shared interface,
 * pcie-protocol.md §7). */
uint64_t app_tx_kind_beats (const App *app, TlpKind kind);
uint64_t app_rx_beats (const App *app);

/* Interface time since the start, up to time t, spent carrying write data (MWr payload beats on transmit), read
 * requests (MRd beats and the turnarounds around them on transmit) and completion data (CplD payload beats on
 * receive), in ps: a logic analyser's view of the interface (published-calibration.md §2.1). Exact at any t from the
 * start of the last TLP scheduled on each side onwards, so two calls at the ends of a window give the time inside
 * it, whatever TLPs straddle its edges. With straddle the beats are 256-bit segments (app_unit_ps()). */
typedef struct {
  SimTime tx_data_ps, tx_read_request_ps, rx_data_ps;
} AppBusy;
AppBusy app_busy_at (const App *app, SimTime t);
/* Nothing queued in either direction. */
gboolean app_idle (const App *app);
/* The transmit side's idle-cause clock (see the contract) and the TLPs it has handed to the link (each followed by
 * tx_gap_cycles). */
StallClock *app_stall_clock (App *app);
uint64_t app_tx_tlps (const App *app);
