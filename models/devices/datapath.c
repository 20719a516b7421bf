/* datapath.c — application datapath: beat-accurate transmit arbitration and receive handling (contract in datapath.h).
 *
 * Each direction of the interface is one resource on the application clock, busy for whole beats. The link
 * works in symbol times, which are not application cycles, so every start is rounded up to the next clock edge;
 * edges are the multiples of cycle_ps counted from time 0 (every clock in phase, none drifting).
 *
 * Transmit decides late: the arbiter picks a TLP only when the interface is free, and asks the clients then. A
 * TLP chosen beats ahead would have been sized against credits, tags and descriptors that have since changed,
 * and a client that became ready during the previous TLP could not compete for the next grant. Transmit costs
 * beats (avst.h), the engine-switch turnaround and the per-TLP gap; receive costs beats plus a per-TLP overhead.
 * They matter only where the datapath runs at about the link's rate (x4/x8 rows); on x1 links it is 2-4x faster
 * than the wire (docs/validation.md: "Which mechanism costs what").
 *
 * Straddle (AppParams.straddle), the rule modelled: on a 512- or 1024-bit interface a TLP may start at any
 * 256-bit segment boundary, so a TLP that ends in the lower half of a beat lets the next start in its upper
 * half. Sources, as we know them: Intel's P-tile and F-tile Avalon-ST interfaces split a 512-bit beat into two
 * 256-bit segments, each with its own start of packet, and R-tile's 1024-bit one into four; Xilinx's UltraScale+
 * and Versal integrated blocks (PG213, PG343) let a second TLP start at DW 8 of a 512-bit CQ/CC/RQ beat, and up
 * to four start at DW 0/4/8/12 of an RC beat. Assumptions (UNCONFIRMED in detail): one 256-bit granularity for
 * both directions, so RC's 128-bit starts are not used (pessimistic for completions); the header travels in the
 * data as in avst.h (Xilinx's descriptors do; P-tile carries it on a side bus, so this overstates P-tile by at
 * most a segment per TLP); and the avst.h alignment applies from the segment a TLP starts in. Timing: a segment
 * lasts width / 256 of a period, and a TLP is handed on at the end of its last segment, which for one ending in
 * a beat's lower half is up to half a period before the beat's real end; throughput is exact.
 */
#include "models/devices/datapath.h"

#include <math.h>

#include "models/devices/avst.h"

typedef struct {
  SimTime busy_ps; /* every interval counted so far, whole */
  SimTime from, to; /* the last interval counted */
} AppSpan;

struct App {
  SimEngine *engine;
  AppParams p;
  LinkPort *port;
  TlpPool *pool;
  SimTime cycle_ps; /* one application clock period, ps: one beat */
  SimTime unit_ps; /* a beat, or with straddle one 256-bit segment: cycle_ps / segments, exactly */
  uint32_t unit_bits; /* width_bits, or 256 with straddle: the width avst_beats() counts in */

  /* Grown by app_add_client() while the system is built (a DMA engine per channel and direction, or a flow per
   * transfer an endpoint sources: as many as the config has), never while it runs. */
  AppTxClient *clients;
  void **client_ctx;
  guint n_clients;
  guint last_winner; /* previous grant: round robin resumes after it, and a different winner pays the turnaround */

  /* Transmit: at most one TLP is on the interface or waiting for the link at a time (the hard IP's
   * tx_st_ready handshake allows no more). */
  Tlp *tx_cur;
  guint tx_cur_client;
  gboolean tx_waiting_link; /* beats done, link_port_can_send said no: tx-ready callback pending */
  gboolean tx_arb_pending; /* an arbitration event is scheduled */
  SimTime tx_free_at; /* first edge at which the interface may start another TLP */
  uint64_t tx_beats, tx_switch_cycles;
  uint64_t tx_kind_beats[TLP_KIND_COUNT];
  /* Busy-time accounts for app_busy_at(): totals over every TLP scheduled so far, and the last such TLP's interval
   * of that kind, the only one that can still lie partly after the present (one TLP per side at a time). */
  AppSpan tx_data, tx_request, rx_data;
  gboolean tx_any; /* a TLP has been sent: last_winner is meaningful for the switch penalty */
  uint64_t tx_tlps;
  StallClock stall; /* why the transmit side is idle (datapath.h) */

  /* Receive: a TLP FIFO (tlp.h). The IP's receive pipeline delay is the link's rx_pipeline_ps; stamp_ps is
   * left alone so the sender's stamp (e.g. when a PIO write left the host) reaches the handler. */
  TlpFifo rx;
  gboolean rx_busy;
  uint64_t rx_beats;
  AppRxFn rx_fn;
  void *rx_ctx;
};

gboolean
app_params_check (const AppParams *p, GError **error)
{
  /* 512 and 1024 bits are the Gen4/Gen5 hard IPs' widths (pcie-protocol.md §7); the beat rule of avst.h scales
   * to them. */
  if (p->width_bits != 64 && p->width_bits != 128 && p->width_bits != 256 && p->width_bits != 512
      && p->width_bits != 1024) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "application datapath width %u bits: must be 64, 128, 256, 512 or 1024",
      p->width_bits);
    return FALSE;
  }
  /* Below 512 bits a beat is one 256-bit segment or less: nothing to straddle. */
  if (p->straddle && p->width_bits < 512) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "straddle needs a 512- or 1024-bit datapath, not %u bits", p->width_bits);
    return FALSE;
  }
  if (!(p->clock_mhz > 0.0 && p->clock_mhz <= 2000.0)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "application clock %g MHz: must be in (0, 2000]", p->clock_mhz);
    return FALSE;
  }
  return TRUE;
}

/* Next clock edge (with straddle, segment boundary) at or after t. A time already on one stays put, so
 * back-to-back work loses no cycle. */
static SimTime
edge (const App *a, SimTime t)
{
  return (t + a->unit_ps - 1) / a->unit_ps * a->unit_ps;
}

static void tx_arbitrate (SimEngine *e, void *ctx, uint64_t arg);

/* Nothing granted and nothing refused: the first client, in registration (priority) order, that waits for
 * something names it. */
static StallCause
tx_idle_cause (const App *a)
{
  for (guint c = 0; c < a->n_clients; c++)
    if (a->clients[c].why != NULL) {
      StallCause w = a->clients[c].why (a->client_ctx[c]);
      if (w != STALL_IDLE)
        return w;
    }
  return STALL_IDLE;
}

static void
span_add (AppSpan *s, SimTime from, SimTime to)
{
  s->busy_ps += to - from;
  s->from = from;
  s->to = to;
}

/* The total up to t: everything counted, less the part of the last interval that lies after t. */
static SimTime
span_at (const AppSpan *s, SimTime t)
{
  return s->to > t ? s->busy_ps - (s->to - MAX (s->from, t)) : s->busy_ps;
}

static void rx_start (App *a);

/* At most one arbitration is pending, and none while a TLP holds the interface: kicks during a TLP's beats or
 * its gap fold into the one decision taken when the interface is free, where every ready client competes. */
static void
schedule_arbitration (App *a)
{
  if (a->tx_arb_pending || a->tx_cur != NULL)
    return;
  a->tx_arb_pending = TRUE;
  SimTime now = sim_now (a->engine);
  sim_schedule_at (a->engine, MAX (edge (a, now), a->tx_free_at), tx_arbitrate, a, 0);
}

/* The link refused client c's TLP: the datapath and the client wait for what the link said. */
static StallCause
tx_refused (App *a, guint c)
{
  StallCause why = link_port_refused (a->port);
  if (a->clients[c].refused != NULL)
    a->clients[c].refused (a->client_ctx[c], why);
  return why;
}

static void
tx_hand_over (App *a)
{
  Tlp *t = a->tx_cur;
  if (!link_port_can_send (a->port, t)) {
    /* Only this app sends on the port, so credits checked at arbitration cannot have gone; queue or replay
     * space can still be short if the link's limits are smaller than one TLP's worth of headroom. */
    a->tx_waiting_link = TRUE;
    stall_set_at (&a->stall, a->engine, tx_refused (a, a->tx_cur_client));
    return;
  }
  /* Back to the datapath's own time: the gap, then the next arbitration. */
  stall_set_at (&a->stall, a->engine, STALL_DATAPATH);
  a->tx_tlps++;
  /* Until here the TLP kept the interface: the application cannot start another while the IP has not accepted
   * this one (store-and-forward, datapath.h). */
  a->tx_waiting_link = FALSE;
  a->tx_cur = NULL;
  guint c = a->tx_cur_client;
  /* Notify before sending: after link_port_send the link owns (and may already have freed) the TLP. */
  if (a->clients[c].sent != NULL)
    a->clients[c].sent (a->client_ctx[c], t);
  link_port_send (a->port, t);
  schedule_arbitration (a);
}

static void
tx_beats_done (SimEngine *e, void *ctx, uint64_t arg)
{
  App *a = ctx;
  tx_hand_over (a);
}

static void
tx_arbitrate (SimEngine *e, void *ctx, uint64_t arg)
{
  App *a = ctx;
  a->tx_arb_pending = FALSE;
  if (a->tx_cur != NULL || a->n_clients == 0)
    return;
  /* Priority always scans from client 0 (registration order); round robin from the one after the last grant, so
   * two clients that stay ready alternate TLP by TLP. */
  guint start = a->p.arbitration == APP_ARB_ROUND_ROBIN ? a->last_winner + 1 : 0;
  StallCause refused = STALL_IDLE;
  for (guint k = 0; k < a->n_clients; k++) {
    /* start <= n_clients and k < n_clients: one subtraction wraps, where a modulo would divide per client. */
    guint c = start + k >= a->n_clients ? start + k - a->n_clients : start + k;
    /* A probe commits nothing: a client skipped for credits is asked again later and describes its TLP anew. */
    Tlp probe; /* a peek that says yes fills all of it (AppTxClient) */
    if (!a->clients[c].peek (a->client_ctx[c], &probe))
      continue;
    if (!link_port_can_send (a->port, &probe)) {
      if (refused == STALL_IDLE)
        refused = tx_refused (a, c);
      continue; /* blocked on credits: let another class through; tx-ready will bring us back */
    }
    /* take() must hand over the very TLP peek() described: the credit check above was made for it. */
    Tlp *t = a->clients[c].take (a->client_ctx[c], &probe);
    g_assert (t != NULL);
    uint32_t beats = avst_beats (a->unit_bits, a->p.header_own_beat, t->header_bytes, t->address,
      t->payload_bytes);
    a->tx_beats += beats;
    /* Handing the interface to another source costs the multiplexer's turnaround before the first beat. */
    uint32_t idle = a->tx_any && c != a->last_winner ? a->p.arb_switch_cycles : 0;
    a->tx_switch_cycles += idle;
    SimTime begin = sim_now (e) + (SimTime) idle * a->cycle_ps, end = begin + (SimTime) beats * a->unit_ps;
    if (t->kind == TLP_MRD)
      span_add (&a->tx_request, sim_now (e), end);
    else {
      if (idle)
        span_add (&a->tx_request, sim_now (e), begin);
      if (t->kind == TLP_MWR)
        span_add (&a->tx_data, begin + (SimTime) avst_header_beats (a->unit_bits, a->p.header_own_beat,
                  t->header_bytes, t->address, t->payload_bytes) * a->unit_ps, end);
    }
    /* Beats per kind let the report show what read requests take from writes (pcie-protocol.md §7). */
    a->tx_kind_beats[t->kind] += beats;
    a->tx_any = TRUE;
    a->last_winner = c;
    a->tx_cur = t;
    a->tx_cur_client = c;
    /* Arbitration runs only on edges (schedule_arbitration), so done and tx_free_at are edges too. The gap counts
     * from the last beat, whether or not the link takes the TLP at once. */
    SimTime done = sim_now (e) + (SimTime) idle * a->cycle_ps + (SimTime) beats * a->unit_ps;
    a->tx_free_at = done + (SimTime) a->p.tx_gap_cycles * a->cycle_ps;
    sim_schedule_at (e, done, tx_beats_done, a, 0);
    stall_set_at (&a->stall, e, STALL_DATAPATH);
    stall_busy (&a->stall, sim_now (e), a->tx_free_at);
    return;
  }
  /* Nobody could go. Clients with work but no credits are woken by the link's tx-ready; idle ones by app_kick. */
  stall_set_at (&a->stall, e, refused != STALL_IDLE ? refused : tx_idle_cause (a));
}

/* The link has room or credits again. A TLP already through its beats goes first: it still holds the interface,
 * so no client could be granted before it leaves. */
void
app_link_tx_ready (void *ctx, LinkPort *port)
{
  App *a = ctx;
  if (a->tx_waiting_link)
    tx_hand_over (a);
  else
    schedule_arbitration (a);
}

/* The head of the receive FIFO has gone through its beats: hand it to the handler, then free the IP's slot.
 * The slot is freed here, at the end of the beats, not on arrival: the IP's receive buffer holds a TLP until the
 * application has read it out, so a slow datapath shows on the link as credits held back. */
static void
rx_done (SimEngine *e, void *ctx, uint64_t arg)
{
  App *a = ctx;
  Tlp *t = tlp_fifo_pop (&a->rx);
  a->rx_busy = FALSE;
  if (a->rx_fn != NULL)
    a->rx_fn (a->rx_ctx, t);
  link_port_consume (a->port, t);
  tlp_free (a->pool, t);
  rx_start (a);
}

/* Receive has no arbitration: TLPs leave the IP's buffer one at a time in the order the link delivered them.
 * The per-TLP overhead is what makes reads trail writes where the datapath runs at the link's rate: the AN-456
 * families spend 16 interface bytes per completion (rx_overhead_bytes), so a 256-byte completion takes 34 + 2
 * beats on a 64-bit interface and 17 + 1 on a 128-bit one, against 34.5 / 17.25 beats' worth of wire time at
 * Gen1 x4 / Gen2 x8 (docs/validation.md: "Which mechanism costs what"). Bytes rather than cycles because Table
 * 11's 64-bit and 128-bit Stratix IV rows, which move the same 2000 MB/s of interface, read within 1% of each
 * other. */
static void
rx_start (App *a)
{
  if (a->rx_busy || a->rx.head == NULL)
    return;
  Tlp *t = a->rx.head;
  uint32_t unit_bytes = a->unit_bits / 8;
  uint32_t beats = avst_beats (a->unit_bits, a->p.header_own_beat, t->header_bytes, t->address, t->payload_bytes)
                   + a->p.rx_overhead_cycles * (uint32_t) (a->cycle_ps / a->unit_ps)
                   + (a->p.rx_overhead_bytes + unit_bytes - 1) / unit_bytes;
  a->rx_beats += beats;
  a->rx_busy = TRUE;
  SimTime begin = edge (a, sim_now (a->engine));
  /* Data beats follow the header beats; the overhead is counted as idle beats after the TLP. */
  if (t->kind == TLP_CPLD) {
    uint32_t hdr = avst_header_beats (a->unit_bits, a->p.header_own_beat, t->header_bytes, t->address,
      t->payload_bytes);
    uint32_t data = avst_beats (a->unit_bits, a->p.header_own_beat, t->header_bytes, t->address, t->payload_bytes)
                    - hdr;
    span_add (&a->rx_data, begin + (SimTime) hdr * a->unit_ps, begin + (SimTime) (hdr + data) * a->unit_ps);
  }
  sim_schedule_at (a->engine, begin + (SimTime) beats * a->unit_ps, rx_done, a, 0);
}

void
app_link_rx (void *ctx, LinkPort *port, Tlp *t)
{
  App *a = ctx;
  /* Queued, not handled at once: the link can deliver the next TLP while this one is still on the interface. */
  tlp_fifo_push (&a->rx, t);
  rx_start (a);
}

App *
app_new (SimEngine *engine, const AppParams *params, LinkPort *port, TlpPool *pool)
{
  App *a = g_new0 (App, 1);
  a->engine = engine;
  a->p = *params;
  a->port = port;
  a->pool = pool;
  /* Rounded to a whole picosecond: 250 MHz -> 4000 ps exactly; 62.5 MHz -> 16000 ps. With straddle the segment
   * time is rounded and the period made a whole number of segments, so segment boundaries never drift off the
   * clock edges. */
  uint32_t segments = params->straddle ? params->width_bits / 256 : 1;
  a->unit_bits = params->width_bits / segments;
  a->unit_ps = (SimTime) llround (1e6 / params->clock_mhz / segments);
  /* Unreachable after app_params_check() (2000 MHz is 500 ps); kept so edge() can never divide by zero. */
  if (a->unit_ps == 0)
    a->unit_ps = 1;
  a->cycle_ps = a->unit_ps * segments;
  if (port != NULL)
    app_attach (a, port);
  return a;
}

void
app_attach (App *a, LinkPort *port)
{
  a->port = port;
  link_port_set_stall_feeder (port, &a->stall, NULL);
}

void
app_free (App *app)
{
  if (app == NULL)
    return;
  /* TLPs still queued belong to the link's pool; the pool's own teardown reclaims them. */
  g_free (app->clients);
  g_free (app->client_ctx);
  g_free (app);
}

guint
app_add_client (App *a, const AppTxClient *client, void *ctx)
{
  a->clients = g_renew (AppTxClient, a->clients, a->n_clients + 1);
  a->client_ctx = g_renew (void *, a->client_ctx, a->n_clients + 1);
  a->clients[a->n_clients] = *client;
  a->client_ctx[a->n_clients] = ctx;
  /* Round robin starts with client 0 on the first arbitration: the newest client counts as the last winner, and
   * start = last + 1 wraps to 0. */
  a->last_winner = a->n_clients;
  return a->n_clients++;
}

void
app_set_rx (App *a, AppRxFn fn, void *ctx)
{
  a->rx_fn = fn;
  a->rx_ctx = ctx;
}

void
app_kick (App *a)
{
  schedule_arbitration (a);
}

LinkPort *
app_port (const App *a)
{
  return a->port;
}

SimTime
app_cycle_ps (const App *a)
{
  return a->cycle_ps;
}

SimTime
app_unit_ps (const App *a)
{
  return a->unit_ps;
}

uint64_t
app_tx_beats (const App *a)
{
  return a->tx_beats;
}

uint64_t
app_tx_switch_cycles (const App *a)
{
  return a->tx_switch_cycles;
}

uint64_t
app_tx_kind_beats (const App *a, TlpKind kind)
{
  g_assert (kind < TLP_KIND_COUNT);
  return a->tx_kind_beats[kind];
}

uint64_t
app_rx_beats (const App *a)
{
  return a->rx_beats;
}

AppBusy
app_busy_at (const App *a, SimTime t)
{
  return (AppBusy) { span_at (&a->tx_data, t), span_at (&a->tx_request, t), span_at (&a->rx_data, t) };
}

/* A TLP waiting for the link or still in its beats counts as work; a pending arbitration with nothing taken
 * does not. */
gboolean
app_idle (const App *a)
{
  return a->tx_cur == NULL && a->rx.head == NULL;
}

StallClock *
app_stall_clock (App *a)
{
  return &a->stall;
}

uint64_t
app_tx_tlps (const App *a)
{
  return a->tx_tlps;
}
