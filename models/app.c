/* app.c — application datapath: beat-accurate transmit arbitration and receive handling (contract in app.h). */
#include "models/app.h"

#include <math.h>

#include "models/avst.h"
#include "sim/error.h"

#define APP_MAX_CLIENTS 8

struct App {
  SimEngine *engine;
  AppParams p;
  LinkPort *port;
  TlpPool *pool;
  SimTime cycle_ps;

  AppTxClient clients[APP_MAX_CLIENTS];
  void *client_ctx[APP_MAX_CLIENTS];
  guint n_clients;
  guint last_winner;

  /* Transmit: at most one TLP is on the interface or waiting for the link at a time (the hard IP's
   * tx_st_ready handshake allows no more). */
  Tlp *tx_cur;
  guint tx_cur_client;
  gboolean tx_waiting_link; /* beats done, link_port_can_send said no: tx-ready callback pending */
  gboolean tx_arb_pending; /* an arbitration event is scheduled */
  SimTime tx_free_at; /* first edge at which the interface may start another TLP */
  uint64_t tx_beats, tx_switch_cycles;
  uint64_t tx_kind_beats[TLP_KIND_COUNT];
  gboolean tx_any; /* a TLP has been sent: last_winner is meaningful for the switch penalty */

  /* Receive: FIFO through Tlp.next. The IP's receive pipeline delay is the link's rx_pipeline_ps; stamp_ps is
   * left alone so the sender's stamp (e.g. when a PIO write left the host) reaches the handler. */
  Tlp *rx_head, *rx_tail;
  gboolean rx_busy;
  uint64_t rx_beats;
  AppRxFn rx_fn;
  void *rx_ctx;
};

gboolean
app_params_check (const AppParams *p, GError **error)
{
  /* 512 bits is the Gen4/Gen5 hard IPs' width (pcie-protocol.md §7); the beat rule of avst.c scales to it. */
  if (p->width_bits != 64 && p->width_bits != 128 && p->width_bits != 256 && p->width_bits != 512) {
    ps_error_plain (error, PS_ERROR_DATA, "application datapath width %u bits: must be 64, 128, 256 or 512",
      p->width_bits);
    return FALSE;
  }
  if (!(p->clock_mhz > 0.0 && p->clock_mhz <= 2000.0)) {
    ps_error_plain (error, PS_ERROR_DATA, "application clock %g MHz: must be in (0, 2000]", p->clock_mhz);
    return FALSE;
  }
  return TRUE;
}

/* Next clock edge at or after t. */
static SimTime
edge (const App *a, SimTime t)
{
  return (t + a->cycle_ps - 1) / a->cycle_ps * a->cycle_ps;
}

static void tx_arbitrate (SimEngine *e, void *ctx, uint64_t arg);
static void rx_start (App *a);

static void
schedule_arbitration (App *a)
{
  if (a->tx_arb_pending || a->tx_cur != NULL)
    return;
  a->tx_arb_pending = TRUE;
  SimTime now = sim_now (a->engine);
  sim_schedule_at (a->engine, MAX (edge (a, now), a->tx_free_at), tx_arbitrate, a, 0);
}

static void
tx_hand_over (App *a)
{
  Tlp *t = a->tx_cur;
  if (!link_port_can_send (a->port, t)) {
    /* Only this app sends on the port, so credits checked at arbitration cannot have gone; queue or replay
     * space can still be short if the link's limits are smaller than one TLP's worth of headroom. */
    a->tx_waiting_link = TRUE;
    return;
  }
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
  guint start = a->p.arbitration == APP_ARB_ROUND_ROBIN ? a->last_winner + 1 : 0;
  for (guint k = 0; k < a->n_clients; k++) {
    guint c = (start + k) % a->n_clients;
    Tlp probe = { 0 };
    if (!a->clients[c].peek (a->client_ctx[c], &probe))
      continue;
    if (!link_port_can_send (a->port, &probe))
      continue; /* blocked on credits: let another class through; tx-ready will bring us back */
    Tlp *t = a->clients[c].take (a->client_ctx[c]);
    g_assert (t != NULL && t->kind == probe.kind && t->payload_bytes == probe.payload_bytes);
    uint32_t beats = avst_beats (a->p.width_bits, a->p.header_own_beat, t->header_bytes, t->address,
      t->payload_bytes);
    a->tx_beats += beats;
    /* Handing the interface to another source costs the multiplexer's turnaround before the first beat. */
    uint32_t idle = a->tx_any && c != a->last_winner ? a->p.arb_switch_cycles : 0;
    a->tx_switch_cycles += idle;
    a->tx_kind_beats[t->kind] += beats;
    a->tx_any = TRUE;
    a->last_winner = c;
    a->tx_cur = t;
    a->tx_cur_client = c;
    SimTime done = sim_now (e) + (SimTime) (idle + beats) * a->cycle_ps;
    a->tx_free_at = done + (SimTime) a->p.tx_gap_cycles * a->cycle_ps;
    sim_schedule_at (e, done, tx_beats_done, a, 0);
    return;
  }
  /* Nobody could go. Clients with work but no credits are woken by the link's tx-ready; idle ones by app_kick. */
}

static void
on_tx_ready (void *ctx, LinkPort *port)
{
  App *a = ctx;
  if (a->tx_waiting_link)
    tx_hand_over (a);
  else
    schedule_arbitration (a);
}

/* The head of the receive FIFO has gone through its beats: hand it to the handler, then free the IP's slot. */
static void
rx_done (SimEngine *e, void *ctx, uint64_t arg)
{
  App *a = ctx;
  Tlp *t = a->rx_head;
  a->rx_head = t->next;
  if (a->rx_head == NULL)
    a->rx_tail = NULL;
  t->next = NULL;
  a->rx_busy = FALSE;
  if (a->rx_fn != NULL)
    a->rx_fn (a->rx_ctx, t);
  link_port_consume (a->port, t);
  tlp_free (a->pool, t);
  rx_start (a);
}

static void
rx_start (App *a)
{
  if (a->rx_busy || a->rx_head == NULL)
    return;
  Tlp *t = a->rx_head;
  uint32_t beats = avst_beats (a->p.width_bits, a->p.header_own_beat, t->header_bytes, t->address, t->payload_bytes)
                   + a->p.rx_overhead_cycles;
  a->rx_beats += beats;
  a->rx_busy = TRUE;
  SimTime begin = edge (a, sim_now (a->engine));
  sim_schedule_at (a->engine, begin + (SimTime) beats * a->cycle_ps, rx_done, a, 0);
}

static void
on_rx (void *ctx, LinkPort *port, Tlp *t)
{
  App *a = ctx;
  t->next = NULL;
  if (a->rx_tail != NULL)
    a->rx_tail->next = t;
  else
    a->rx_head = t;
  a->rx_tail = t;
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
  /* Rounded to a whole picosecond: 250 MHz -> 4000 ps exactly; 62.5 MHz -> 16000 ps. */
  a->cycle_ps = (SimTime) llround (1e6 / params->clock_mhz);
  if (a->cycle_ps == 0)
    a->cycle_ps = 1;
  a->last_winner = APP_MAX_CLIENTS - 1;
  link_port_set_rx (port, on_rx, a);
  link_port_set_tx_ready (port, on_tx_ready, a);
  return a;
}

void
app_free (App *app)
{
  if (app == NULL)
    return;
  /* TLPs still queued belong to the link's pool; the pool's own teardown reclaims them. */
  g_free (app);
}

guint
app_add_client (App *a, const AppTxClient *client, void *ctx)
{
  g_assert (a->n_clients < APP_MAX_CLIENTS);
  a->clients[a->n_clients] = *client;
  a->client_ctx[a->n_clients] = ctx;
  /* Round robin starts with client 0 on the first arbitration. */
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

gboolean
app_idle (const App *a)
{
  return a->tx_cur == NULL && a->rx_head == NULL;
}
