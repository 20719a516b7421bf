/* why.c — stalls, verdicts and latencies of a DMA workload (contract in why.h).
 *
 * Everything here happens at the edges of a window or at the end of a run, except the one observer that records a
 * posted write's latency when the root port receives it: the per-packet work is the clocks' (stall.h), which the
 * models keep whether or not anyone reads them.
 */
#include "models/analysis/why.h"

#include "models/devices/avst.h"
#include "models/txn/completer.h"

#include <math.h>
#include <string.h>

/* Transmitters, in WhyResult.tx order. */
enum { TX_UP, TX_DOWN, TX_DATAPATH };

typedef struct {
  double bytes, window_ns, hardware_ns, phase_ns[WHY_SW_PHASES];
} WhySoftware;

typedef struct {
  SimTime clock[WHY_TRANSMITTERS][STALL_COUNT];
  uint64_t kind_beats[TLP_KIND_COUNT], switch_cycles, tlps, rx_beats;
  LinkCreditStats credits[2];
} Snap;

struct Why {
  SimEngine *engine;
  Link *link;
  App *app;
  DmaChain *dma;
  const AppParams *ap;
  const DmaParams *dp;
  const HostParams *hp;
  uint16_t requester;
  char link_name[32], ep_name[32];
  StallClock *clock[WHY_TRANSMITTERS];
  Snap at_open;
  SimTime open_ps;
  /* Sums over the closed windows. */
  double window_ps;
  double clock_ps[WHY_TRANSMITTERS][STALL_COUNT];
  uint64_t kind_beats[TLP_KIND_COUNT], switch_cycles, tlps, rx_beats;
  uint64_t consumed[2][FC_CLASS_COUNT][2], held_ps[2][FC_CLASS_COUNT][2];
  uint32_t advertised[2][FC_CLASS_COUNT][2];
  LatHist write_lat;
  WhySoftware sw[DMA_DIR_COUNT]; /* software-timed figures (why_set_software), zero otherwise */
};

/* A posted write of ours reaches the root complex: committed (stamp_ps, dma_chain.h) -> delivered. */
static void
on_delivered (void *ctx, const Tlp *t)
{
  Why *w = ctx;
  if (t->kind == TLP_MWR && t->requester == w->requester)
    lat_add (&w->write_lat, sim_now (w->engine) - t->stamp_ps);
}

Why *
why_new (SimEngine *engine, Link *link, const char *link_name, App *app, const AppParams *ap, DmaChain *dma,
  const DmaParams *dp, const HostParams *hp, uint16_t requester, const char *ep_name)
{
  Why *w = g_new0 (Why, 1);
  *w = (Why) { .engine = engine, .link = link, .app = app, .dma = dma, .ap = ap, .dp = dp, .hp = hp,
               .requester = requester };
  g_strlcpy (w->link_name, link_name, sizeof w->link_name);
  g_strlcpy (w->ep_name, ep_name, sizeof w->ep_name);
  w->clock[TX_UP] = link_stall_clock (link, LINK_UPSTREAM);
  w->clock[TX_DOWN] = link_stall_clock (link, LINK_DOWNSTREAM);
  w->clock[TX_DATAPATH] = app_stall_clock (app);
  /* The root port waits for read data: whether that is the host's latency or the requester's want of tags is the
   * read engines' to say (stall.h, refine). */
  LinkPort *root = link_port (link, LINK_DSP);
  link_port_set_stall_feeder (root, NULL, dma_chain_stall_clock (dma, DMA_READ));
  link_port_set_rx_observer (root, on_delivered, w);
  return w;
}

void
why_free (Why *w)
{
  g_free (w);
}

static void
snap (Why *w, Snap *s)
{
  SimTime now = sim_now (w->engine);
  for (int i = 0; i < WHY_TRANSMITTERS; i++)
    stall_read (w->clock[i], now, s->clock[i]);
  for (int k = 0; k < TLP_KIND_COUNT; k++)
    s->kind_beats[k] = app_tx_kind_beats (w->app, (TlpKind) k);
  s->switch_cycles = app_tx_switch_cycles (w->app);
  s->tlps = app_tx_tlps (w->app);
  s->rx_beats = app_rx_beats (w->app);
  for (int d = 0; d < 2; d++)
    s->credits[d] = link_credit_stats (w->link, (LinkDir) d);
}

void
why_open (Why *w, SimTime now)
{
  snap (w, &w->at_open);
  w->open_ps = now;
}

void
why_close (Why *w, SimTime stop)
{
  Snap s;
  snap (w, &s);
  const Snap *o = &w->at_open;
  w->window_ps += (double) (stop - w->open_ps);
  for (int i = 0; i < WHY_TRANSMITTERS; i++)
    for (int c = 0; c < STALL_COUNT; c++)
      w->clock_ps[i][c] += (double) (s.clock[i][c] - o->clock[i][c]);
  for (int k = 0; k < TLP_KIND_COUNT; k++)
    w->kind_beats[k] += s.kind_beats[k] - o->kind_beats[k];
  w->switch_cycles += s.switch_cycles - o->switch_cycles;
  w->tlps += s.tlps - o->tlps;
  w->rx_beats += s.rx_beats - o->rx_beats;
  for (int d = 0; d < 2; d++)
    for (int c = 0; c < FC_CLASS_COUNT; c++)
      for (int p = 0; p < 2; p++) {
        w->consumed[d][c][p] += s.credits[d].consumed[c][p] - o->credits[d].consumed[c][p];
        w->held_ps[d][c][p] += s.credits[d].held_ps[c][p] - o->credits[d].held_ps[c][p];
        w->advertised[d][c][p] = s.credits[d].advertised[c][p];
      }
}

/* A link direction: busy as its usage says, its idle share split as its clock saw the idle time. */
static void
link_tx (const Why *w, int i, const LinkUsage *u, WhyTransmitter *t)
{
  static const char *const names[] = { "payload", "tlp_overhead", "dllp", "ordered_sets" };
  g_snprintf (t->name, sizeof t->name, "%s.%s", w->link_name, i == TX_UP ? "up" : "down");
  t->n_busy = 4;
  const double busy[] = { u->payload, u->tlp_overhead, u->dllp, u->ordered_sets };
  for (guint k = 0; k < 4; k++) {
    t->busy_name[k] = names[k];
    t->busy[k] = busy[k];
  }
  double total = 0;
  for (int c = 0; c < STALL_COUNT; c++)
    total += w->clock_ps[i][c];
  for (int c = 0; c < STALL_COUNT; c++)
    t->idle[c] = total > 0 ? u->idle * w->clock_ps[i][c] / total : c == STALL_IDLE ? u->idle : 0;
}

/* The datapath's transmit side: its beats by what they carried, turnarounds and gaps; idle by its clock. Both
 * sides are counted in whole TLPs at their grant, so the sum is scaled to 1 rather than to the window. */
static void
datapath_tx (const Why *w, WhyTransmitter *t)
{
  static const char *const names[] = { "write_data", "read_requests", "completions", "messages", "turnaround",
                                        "gap" };
  g_snprintf (t->name, sizeof t->name, "%s.datapath", w->ep_name);
  double unit = (double) app_unit_ps (w->app), cycle = (double) app_cycle_ps (w->app);
  const double busy[] = { w->kind_beats[TLP_MWR] * unit, w->kind_beats[TLP_MRD] * unit,
                          (w->kind_beats[TLP_CPLD] + w->kind_beats[TLP_CPL]) * unit, w->kind_beats[TLP_MSI] * unit,
                          w->switch_cycles * cycle, (double) w->tlps * w->ap->tx_gap_cycles * cycle };
  double busy_ps = 0, idle_ps = 0;
  for (guint k = 0; k < G_N_ELEMENTS (busy); k++)
    busy_ps += busy[k];
  for (int c = 0; c < STALL_COUNT; c++)
    idle_ps += w->clock_ps[TX_DATAPATH][c];
  double total = busy_ps + idle_ps;
  t->n_busy = G_N_ELEMENTS (busy);
  for (guint k = 0; k < t->n_busy; k++) {
    t->busy_name[k] = names[k];
    t->busy[k] = total > 0 ? busy[k] / total : 0;
  }
  for (int c = 0; c < STALL_COUNT; c++)
    t->idle[c] = total > 0 ? w->clock_ps[TX_DATAPATH][c] / total : c == STALL_IDLE;
}

/* MB/s = bytes / ps x 1e6. */
static double
mbps_of (double bytes, double ps)
{
  return ps > 0 ? bytes / ps * 1e6 : NAN;
}

/* The transmit side is one interface: what else it carried in the windows (the other kinds' beats, turnarounds,
 * their gaps) is paid for per TLP of the figure's kind (`own` of `beats` beats each), so a simultaneous run's
 * reads take their share of the writes' capacity and the writes theirs of the reads'. */
static double
tx_others_ps (const Why *w, TlpKind own, uint32_t beats)
{
  double own_tlps = beats ? (double) w->kind_beats[own] / beats : 0;
  if (own_tlps < 1)
    return 0;
  double unit = (double) app_unit_ps (w->app), cycle = (double) app_cycle_ps (w->app);
  uint64_t other_beats = 0;
  for (int k = 0; k < TLP_KIND_COUNT; k++)
    other_beats += k != (int) own ? w->kind_beats[k] : 0;
  double other_tlps = MAX (0.0, (double) w->tlps - own_tlps);
  return (other_beats * unit + w->switch_cycles * cycle + other_tlps * w->ap->tx_gap_cycles * cycle) / own_tlps;
}

double
why_datapath_capacity_mbps (const AppParams *ap, gboolean rx, uint32_t payload, uint32_t header_bytes)
{
  /* The interface's beat, as datapath.c makes it: a straddling interface moves 256-bit segments. */
  uint32_t segments = ap->straddle ? ap->width_bits / 256 : 1, unit_bits = ap->width_bits / segments;
  double unit = MAX (1.0, (double) llround (1e6 / ap->clock_mhz / segments)), cycle = unit * segments;
  uint32_t beats = avst_beats (unit_bits, ap->header_own_beat, header_bytes, 0, payload);
  if (!rx)
    return mbps_of (payload, beats * unit + ap->tx_gap_cycles * cycle);
  uint32_t unit_bytes = unit_bits / 8;
  beats += ap->rx_overhead_cycles * segments + (ap->rx_overhead_bytes + unit_bytes - 1) / unit_bytes;
  return mbps_of (payload, beats * unit);
}

/* What the datapath alone allows for a figure's data: its own capacity, from the TLP the figure moves in steady
 * state (an aligned MWr of MPS, or a CplD cut by the host's policy from an aligned MRRS read) and the beats
 * that TLP costs by the interface's rule (why_datapath_capacity_mbps), not from the figure and a busy share,
 * which would only restate the figure; a write also pays for what else the transmit side carried per write. */
static double
datapath_mbps (const Why *w, DmaDir dir)
{
  if (dir == DMA_WRITE) {
    uint32_t payload = w->dp->max_payload_bytes, hdr = w->dp->addr64 ? 16 : 12;
    double bare = why_datapath_capacity_mbps (w->ap, FALSE, payload, hdr);
    uint32_t unit_bits = w->ap->straddle ? 256 : w->ap->width_bits;
    uint32_t beats = avst_beats (unit_bits, w->ap->header_own_beat, hdr, 0, payload);
    return mbps_of (payload, payload / bare * 1e6 + tx_others_ps (w, TLP_MWR, beats));
  }
  uint32_t payload = txn_cpl_predict (0, w->dp->max_read_request_bytes, w->hp->rcb_bytes, w->dp->max_payload_bytes,
                                      w->hp->cpl_policy);
  return why_datapath_capacity_mbps (w->ap, TRUE, payload, 12);
}

static const char *const credit_words[] = { "posted-header", "posted-data", "non-posted-header", "non-posted-data",
                                            "completion-header", "completion-data" };

const char *const why_software_phase_names[WHY_SW_PHASES] = { "setup", "descriptors", "interrupt", "wakeup",
                                                              "poll" };

/* What the transmit side alone allows a read: an MRd of MRRS per request's beats and gap (it carries no data),
 * and, as for writes, what else the interface carried in the windows per request (a simultaneous run's writes). */
static double
datapath_request_mbps (const Why *w)
{
  const AppParams *ap = w->ap;
  double unit = (double) app_unit_ps (w->app), cycle = (double) app_cycle_ps (w->app);
  uint32_t beats = avst_beats (ap->straddle ? 256 : ap->width_bits, ap->header_own_beat, w->dp->addr64 ? 16 : 12,
                               0, 0);
  return mbps_of (w->dp->max_read_request_bytes,
                  beats * unit + ap->tx_gap_cycles * cycle + tx_others_ps (w, TLP_MRD, beats));
}

/* A credit type's bound: the credits the receiver advertised, each holding its bytes (a data credit 16; a header
 * credit one TLP) for the mean time a credit was held. */
static void
explain_credits (const Why *w, uint32_t tlp_bytes, double share, WhyVerdict *v)
{
  char *s = v->text;
  const size_t n = sizeof v->text;
  const uint32_t mrrs = w->dp->max_read_request_bytes;
  int k = v->cause - STALL_CREDITS_PH, c = k / 2, p = k % 2;
  /* Completion credits are the endpoint's (the host sends completions down); the others the root port's. */
  int d = c == FC_CPL ? LINK_DOWNSTREAM : LINK_UPSTREAM;
  double rtt_ps = w->consumed[d][c][p] ? (double) w->held_ps[d][c][p] / (double) w->consumed[d][c][p] : 0;
  uint32_t adv = w->advertised[d][c][p];
  /* A header credit holds one TLP: a read request of MRRS, a completion as the host cuts it, a write of MPS. */
  uint32_t per_hdr = c == FC_NP    ? mrrs
                     : c == FC_CPL ? txn_cpl_predict (0, mrrs, w->hp->rcb_bytes, w->dp->max_payload_bytes,
                                                      w->hp->cpl_policy)
                                   : tlp_bytes;
  double bytes = p == FC_DATA ? adv * 16.0 : (double) adv * per_hdr;
  v->bound_mbps = mbps_of (bytes, rtt_ps);
  g_snprintf (s, n, "limited by %s credits of the %s: %.0f%% of the figure's time; %u credits = %.0f bytes in "
    "flight%s, %.2f us credit round trip -> %.0f MB/s", credit_words[k], c == FC_CPL ? "endpoint" : "root port",
    share, adv, bytes, p == FC_HDR ? (c == FC_NP ? " (one read request each)" : " (one TLP each)") : "",
    rtt_ps / 1e6, v->bound_mbps);
}

/* Software's bound: a transfer per the driver's own time, the hardware infinitely fast. */
static void
explain_software (const Why *w, DmaDir dir, double share, WhyVerdict *v)
{
  char *s = v->text;
  const size_t n = sizeof v->text;
  double sw_ns = 0;
  int top = 0;
  for (int k = 0; k < WHY_SW_PHASES; k++) {
    sw_ns += v->software_ns[k];
    if (v->software_ns[k] > v->software_ns[top])
      top = k;
  }
  /* What the driver alone allows: a transfer per its own time, the hardware infinitely fast. */
  v->bound_mbps = mbps_of (w->sw[dir].bytes, sw_ns * 1000);
  g_snprintf (s, n, "limited by software: %.0f%% of the figure's time is outside the hardware's (%.2f us per "
    "transfer), the driver's own %.2f us (setup %.2f, descriptors %.2f, interrupt %.2f, wake-up %.2f, poll %.2f; "
    "most: %s) -> %.0f MB/s", share, (w->sw[dir].window_ns - w->sw[dir].hardware_ns) / 1000, sw_ns / 1000,
    v->software_ns[WHY_SW_SETUP] / 1000, v->software_ns[WHY_SW_DESCRIPTORS] / 1000,
    v->software_ns[WHY_SW_INTERRUPT] / 1000, v->software_ns[WHY_SW_WAKEUP] / 1000,
    v->software_ns[WHY_SW_POLL] / 1000, why_software_phase_names[top], v->bound_mbps);
}

/* Reads wait outside the root complex for a place (read_queue_depth) or for completion slots (cpl_queue_tlps): the
 * smaller number of reads at once binds. A read is at least ceil(MRRS / MPS) completions, so the slots' reads are
 * at most that many: still an upper bound, whatever the completer's cut. */
static void
explain_host_queue (const Why *w, double share, WhyVerdict *v)
{
  char *s = v->text;
  const size_t n = sizeof v->text;
  const uint32_t mrrs = w->dp->max_read_request_bytes;
  double lat_ps = (w->hp->read_latency_ns * 1000 + w->hp->read_latency_per_byte_ps * mrrs);
  uint32_t least = MAX ((mrrs + w->dp->max_payload_bytes - 1) / MAX (w->dp->max_payload_bytes, 1u), 1u);
  double by_depth = w->hp->read_queue_depth != 0 ? w->hp->read_queue_depth : INFINITY;
  double by_slots = w->hp->cpl_queue_tlps != 0 ? MAX (w->hp->cpl_queue_tlps / least, 1u) : INFINITY;
  if (by_slots < by_depth) {
    v->bound_mbps = mbps_of (by_slots * mrrs, lat_ps);
    g_snprintf (s, n, "limited by the root complex's completion slots: %.0f%% of the figure's time; %u slots, a "
      "%u-byte read at least %u completions, so at most %.0f at once: %.0f x %u bytes per %.0f ns of read latency "
      "-> %.0f MB/s", share, w->hp->cpl_queue_tlps, mrrs, least, by_slots, by_slots, mrrs, lat_ps / 1000,
      v->bound_mbps);
    return;
  }
  v->bound_mbps = mbps_of (by_depth * mrrs, lat_ps);
  g_snprintf (s, n, "limited by the root complex's read queue: %.0f%% of the figure's time; it works on %u reads at "
    "once, %u x %u bytes per %.0f ns of read latency -> %.0f MB/s", share, w->hp->read_queue_depth,
    w->hp->read_queue_depth, mrrs, lat_ps / 1000, v->bound_mbps);
}

/* The bound and its explanation: where the resource has a capacity of its own, what it alone allows; the text
 * ends with what the link alone would allow, unless the link is the bound. */
static void
explain (const Why *w, DmaDir dir, const LinkUsage *u, WhyVerdict *v)
{
  char *s = v->text;
  const size_t n = sizeof v->text;
  const LatSummary rtt = lat_summary (dma_chain_read_latency (w->dma));
  const double share = v->share * 100;
  const uint32_t mrrs = w->dp->max_read_request_bytes;
  const uint32_t tlp_bytes = dir == DMA_READ ? mrrs : w->dp->max_payload_bytes;
  v->bound_mbps = NAN;
  switch (v->cause) {
  case STALL_LINK: {
    const LinkParams *lp = link_params (w->link);
    g_snprintf (s, n, "limited by the link (Gen%d x%d): %.0f%% of the figure's time (busy %.0f%%: payload %.0f%%, "
      "TLP overhead %.0f%%, DLLPs %.1f%%, ordered sets %.1f%%); the protocol allows %.1f MB/s of %s", lp->gen,
      lp->lanes, share, (1 - u->idle) * 100, u->payload * 100, u->tlp_overhead * 100, u->dllp * 100,
      u->ordered_sets * 100, v->link_mbps, dir == DMA_READ ? "read completions" : "posted writes");
    return;
  }
  case STALL_DATAPATH_TX:
  case STALL_DATAPATH_RX: {
    gboolean rx = v->cause == STALL_DATAPATH_RX;
    v->bound_mbps = rx ? datapath_mbps (w, DMA_READ) : dir == DMA_WRITE ? datapath_mbps (w, DMA_WRITE)
                                                                       : datapath_request_mbps (w);
    g_snprintf (s, n, "limited by the application datapath's %s side (%u bits at %g MHz): %.0f%% of the figure's "
      "time; it alone would allow %.0f MB/s (%s, in beats of its clock)", rx ? "receive" : "transmit",
      w->ap->width_bits, w->ap->clock_mhz, share, v->bound_mbps,
      rx ? "steady completions and their overhead"
         : dir == DMA_WRITE ? "MPS writes, their gap and the requests and turnarounds it carried per write"
                            : "read requests of MRRS");
    break;
  }
  case STALL_CREDITS_PH:
  case STALL_CREDITS_PD:
  case STALL_CREDITS_NPH:
  case STALL_CREDITS_NPD:
  case STALL_CREDITS_CPLH:
  case STALL_CREDITS_CPLD:
    explain_credits (w, tlp_bytes, share, v);
    break;
  case STALL_TAGS: {
    double bytes = (double) w->dp->tags * mrrs;
    v->bound_mbps = mbps_of (bytes, rtt.mean_ns * 1000);
    g_snprintf (s, n, "limited by read tags: %.0f%% of the figure's time; %u tags x %u bytes = %.0f bytes in flight, "
      "%.2f us mean read round trip -> %.0f MB/s", share, w->dp->tags, mrrs, bytes, rtt.mean_ns / 1000,
      v->bound_mbps);
    break;
  }
  case STALL_COMPLETION_BUFFER:
    v->bound_mbps = mbps_of (w->dp->cpl_buffer_bytes, rtt.mean_ns * 1000);
    g_snprintf (s, n, "limited by the endpoint's completion buffer: %.0f%% of the figure's time; %u bytes of reads "
      "in flight, %.2f us mean read round trip -> %.0f MB/s", share, w->dp->cpl_buffer_bytes, rtt.mean_ns / 1000,
      v->bound_mbps);
    break;
  case STALL_HOST_QUEUE:
    explain_host_queue (w, share, v);
    break;
  case STALL_HOST_COMPLETION_RATE: {
    /* The return path's time per steady completion: its fixed part and its bytes at the host's rate. The fixed
     * part is paid once per group of a read's completions (host.h cpl_group_tlps): its share per completion. */
    uint32_t size = txn_cpl_predict (0, mrrs, w->hp->rcb_bytes, w->dp->max_payload_bytes, w->hp->cpl_policy);
    uint32_t per_read = (mrrs + size - 1) / size, group = MAX (w->hp->cpl_group_tlps, 1u);
    uint32_t groups = (per_read + group - 1) / group;
    double overhead_ns = w->hp->cpl_overhead_ns * (group > 1 ? (double) groups / per_read : 1);
    double ps = overhead_ns * 1000 + (w->hp->cpl_rate_mbps > 0 ? size * 1e6 / w->hp->cpl_rate_mbps : 0);
    v->bound_mbps = mbps_of (size, ps);
    g_snprintf (s, n, "limited by the root complex's completion rate: %.0f%% of the figure's time; %u-byte "
      "completions, %.0f ns each (%.0f ns per completion, %g MB/s) -> %.0f MB/s", share, size, ps / 1000,
      overhead_ns, w->hp->cpl_rate_mbps, v->bound_mbps);
    break;
  }
  case STALL_HOST_LATENCY: {
    /* The root complex's part is named only when it took time: on an ideal host the round trip is the link's and
     * the endpoint's alone, and "of which the root complex 0 ns" would name a component that cost nothing. */
    double rc_ns = w->hp->read_latency_ns + w->hp->read_latency_per_byte_ps * mrrs / 1000;
    g_autofree char *rc = rc_ns > 0 ? g_strdup_printf (", of which the root complex %.0f ns", rc_ns) : g_strdup ("");
    g_snprintf (s, n, "limited by the host's read latency: %.0f%% of the figure's time waiting for read data (mean "
      "read round trip %.2f us%s)", share, rtt.mean_ns / 1000, rc);
    break;
  }
  case STALL_DESCRIPTOR_FETCH:
    g_snprintf (s, n, "limited by descriptor fetches: %.0f%% of the figure's time waiting for descriptors (a run's "
      "first fetch takes %.0f ns)", share, dma_chain_first_fetch_ns (w->dma, dir));
    break;
  case STALL_REPLAY_BUFFER:
    g_snprintf (s, n, "limited by the replay buffer (%u bytes): %.0f%% of the figure's time waiting for Acks to "
      "free it", link_params (w->link)->replay_buffer_bytes, share);
    break;
  case STALL_UNACKED_TLPS:
    g_snprintf (s, n, "limited by the data link layer's window: 2048 TLPs unacknowledged, %.0f%% of the figure's "
      "time", share);
    break;
  case STALL_SOFTWARE:
    explain_software (w, dir, share, v);
    break;
  default:
    g_snprintf (s, n, "limited by nothing in particular: %.0f%% of the figure's time the link has nothing to send "
      "and waits for nothing (%s)", share, stall_cause_names[v->cause]);
    break;
  }
  size_t len = strlen (s);
  /* A wait with no capacity of its own (a latency, a fetch, the replay buffer's Acks) has no bound to state: say
   * so rather than divide the figure by a share, which would only restate the figure. */
  if (isnan (v->bound_mbps)) {
    g_snprintf (s + len, n - len, "; no bound of its own");
    len = strlen (s);
  }
  g_snprintf (s + len, n - len, "; the link alone would allow %.1f MB/s", v->link_mbps);
}

/* The runner-up, when it weighs: what binds next once the first is relieved. */
static void
explain_next (WhyVerdict *v)
{
  size_t len = strlen (v->text);
  if (v->next_share >= 0.05)
    g_snprintf (v->text + len, sizeof v->text - len, " (next: %s, %.0f%%)", stall_cause_names[v->next],
                v->next_share * 100);
}

/* Scale the parts to add up to `total`. */
static void
scale_to (double path[STALL_COUNT], double total)
{
  double sum = 0;
  for (int c = 0; c < STALL_COUNT; c++)
    sum += path[c];
  for (int c = 0; c < STALL_COUNT; c++)
    path[c] = sum > 0 ? path[c] * total / sum : 0;
}

/* The verdict's cause: the largest share (the link among equals), and the runner-up. */
static void
pick (WhyVerdict *v)
{
  int best = STALL_LINK, next = -1;
  for (int c = 0; c < STALL_COUNT; c++)
    if (v->path[c] > v->path[best])
      best = c;
  for (int c = 0; c < STALL_COUNT; c++)
    if (c != best && (next < 0 || v->path[c] > v->path[next]))
      next = c;
  v->valid = TRUE;
  v->cause = (StallCause) best;
  v->share = v->path[best];
  v->next = (StallCause) next;
  v->next_share = v->path[next];
}

/* The figure's window split over causes (why.h, docs/why.md), shares of the hardware window `hw` of the figure's
 * window; the caller adds software. `fl_link`, `fl_dp`: the time the figure's bytes need at the link's protocol
 * limit and at the datapath side's capacity. */
static double
split_path (const WhyTransmitter *data, const WhyTransmitter *dp, double busy, double fl_link, double fl_dp,
  StallCause dp_side, gboolean dp_after_link, double path[STALL_COUNT])
{
  for (int c = 0; c < STALL_COUNT; c++)
    path[c] = 0;
  /* The wire's time beyond what the protocol needs for the figure's bytes: other traffic, DLLPs, replays. */
  path[STALL_LINK] = MAX (0.0, busy - fl_link);
  /* Idle stretches: the cause each was held for; a wait for the datapath is walked into its time. */
  double dp_busy = 0, dp_total = 0;
  for (guint k = 0; k < dp->n_busy; k++)
    dp_busy += dp->busy[k];
  dp_total = dp_busy;
  for (int c = 0; c < STALL_COUNT; c++)
    dp_total += dp->idle[c];
  for (int c = 0; c < STALL_COUNT; c++) {
    if (c != STALL_DATAPATH || dp_total <= 0) {
      path[c] += data->idle[c];
      continue;
    }
    path[STALL_DATAPATH_TX] += data->idle[c] * dp_busy / dp_total;
    for (int k = 0; k < STALL_COUNT; k++)
      path[k == STALL_DATAPATH ? STALL_DATAPATH_TX : k] += data->idle[c] * dp->idle[k] / dp_total;
  }
  /* The two capacities: the smaller takes the difference of their floors. A slower transmit side already shows
   * as the link's waits for it (walked above); a slower receive side, after the link, does not. */
  double floor = MIN (fl_link, fl_dp);
  if (fl_link > fl_dp)
    path[STALL_LINK] += fl_link - fl_dp;
  else if (dp_after_link)
    path[dp_side] += fl_dp - fl_link;
  floor = CLAMP (floor, 0.0, 1.0);
  /* The parts are measured over slightly different stretches (usage and clocks over the windows, the figure over
   * its counter): scaled so that floor + parts = 1. */
  scale_to (path, 1 - floor);
  return floor;
}

static void
verdict (const Why *w, DmaDir dir, const WhyResult *r, const LinkUsage usage[2], double mbps, WhyVerdict *v)
{
  *v = (WhyVerdict) { 0 };
  if (!isfinite (mbps))
    return;
  /* Completions carry read data down; posted writes carry write data up. */
  int d = dir == DMA_READ ? LINK_DOWNSTREAM : LINK_UPSTREAM;
  const WhyTransmitter *data = &r->tx[d == LINK_UPSTREAM ? TX_UP : TX_DOWN];
  const LinkParams *lp = link_params (w->link);
  v->link_mbps = link_protocol_limit_mbps (lp, dir == DMA_READ ? 12 : w->dp->addr64 ? 16 : 12);
  /* A software-timed figure: the hardware's windows are a part of its window, the rest is the driver's. */
  const WhySoftware *sw = &w->sw[dir];
  double hw = sw->window_ns > 0 ? CLAMP (sw->hardware_ns / sw->window_ns, 0.0, 1.0) : 1.0;
  double f_hw = mbps / hw;
  double dp_mbps = dir == DMA_READ ? datapath_mbps (w, DMA_READ) : datapath_mbps (w, DMA_WRITE);
  v->floor = hw * split_path (data, &r->tx[TX_DATAPATH], 1.0 - usage[d].idle, f_hw / v->link_mbps, f_hw / dp_mbps,
                              dir == DMA_READ ? STALL_DATAPATH_RX : STALL_DATAPATH_TX, dir == DMA_READ, v->path);
  for (int c = 0; c < STALL_COUNT; c++)
    v->path[c] *= hw;
  if (sw->window_ns > 0) {
    v->path[STALL_SOFTWARE] += 1.0 - hw;
    for (int k = 0; k < WHY_SW_PHASES; k++)
      v->software_ns[k] = sw->phase_ns[k];
  }
  pick (v);
  explain (w, dir, &usage[d], v);
  explain_next (v);
}

void
why_set_software (Why *w, DmaDir dir, double bytes, double window_ns, double hardware_ns,
  const double phase_ns[WHY_SW_PHASES])
{
  WhySoftware *sw = &w->sw[dir];
  sw->bytes = bytes;
  sw->window_ns = window_ns;
  sw->hardware_ns = MIN (hardware_ns, window_ns);
  for (int k = 0; k < WHY_SW_PHASES; k++)
    sw->phase_ns[k] = phase_ns[k];
}

void
why_result (Why *w, const LinkUsage usage[2], const double mbps[DMA_DIR_COUNT], WhyResult *out)
{
  *out = (WhyResult) { 0 };
  link_tx (w, TX_UP, &usage[LINK_UPSTREAM], &out->tx[TX_UP]);
  link_tx (w, TX_DOWN, &usage[LINK_DOWNSTREAM], &out->tx[TX_DOWN]);
  datapath_tx (w, &out->tx[TX_DATAPATH]);
  for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
    verdict (w, (DmaDir) dir, out, usage, mbps[dir], &out->verdict[dir]);
  out->read_latency = lat_summary (dma_chain_read_latency (w->dma));
  out->write_latency = lat_summary (&w->write_lat);
  for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
    out->first_fetch_ns[dir] = dma_chain_first_fetch_ns (w->dma, (DmaDir) dir);
}

/* --- figures measured on a path of links (why.h: fabrics' flows, the microbench, PIO) ------------------------- */

static const char *const hop_words[STALL_COUNT] = {
  [STALL_IDLE] = "nothing to send and nothing waited for",
  [STALL_LINK] = "the wire busy with other traffic, DLLPs and replays",
  [STALL_TAGS] = "the requester out of read tags",
  [STALL_REPLAY_BUFFER] = "the replay buffer full, waiting for Acks",
  [STALL_UNACKED_TLPS] = "2048 TLPs unacknowledged",
  [STALL_DATAPATH] = "the source's datapath busy",
  [STALL_DESCRIPTOR_FETCH] = "descriptors being fetched",
  [STALL_HOST_LATENCY] = "read data from the completer",
  [STALL_HOST_QUEUE] = "reads queued in the root complex",
  [STALL_SOFTWARE] = "the program: a core's stores or loads, one round trip at a time",
  [STALL_COMPLETION_BUFFER] = "the requester's completion buffer full",
  [STALL_HOST_COMPLETION_RATE] = "the root complex's return path producing completions",
  [STALL_SWITCH_PORT] = "a switch's egress port carrying other ports' traffic",
  [STALL_DATAPATH_TX] = "the source's transmit datapath: its beats, or its DMA engine's command rate",
  [STALL_DATAPATH_RX] = "the receive datapath",
};

void
why_hops_verdict (const WhyHop *hops, guint n, double mbps, StallCause source_cause, double source_mbps,
  WhyVerdict *v)
{
  *v = (WhyVerdict) { 0 };
  if (n == 0 || !isfinite (mbps) || mbps <= 0)
    return;
  double limit = G_MAXDOUBLE;
  for (guint i = 0; i < n; i++)
    if (hops[i].limit_mbps > 0)
      limit = MIN (limit, hops[i].limit_mbps);
  v->link_mbps = limit;
  /* From the last hop back: a hop's wire time beyond the figure's need is its transmitter's (a switch's egress
   * port shares it among its ingress ports); a wait is its cause's; "nothing to send" is walked into the hop
   * before, and at the source into what the source waits for. */
  double s = 1;
  for (guint k = n; k-- > 0 && s > 0;) {
    const WhyHop *h = &hops[k];
    double busy = 1 - h->usage.idle, idle_total = 0;
    for (int c = 0; c < STALL_COUNT; c++)
      idle_total += h->idle_ps[c];
    double need = h->limit_mbps > 0 ? mbps / h->limit_mbps : 0;
    v->path[h->from_switch ? STALL_SWITCH_PORT : STALL_LINK] += s * MAX (0.0, busy - need);
    double carry = idle_total > 0 ? 0 : s * h->usage.idle;
    for (int c = 0; c < STALL_COUNT && idle_total > 0; c++) {
      double x = s * h->usage.idle * h->idle_ps[c] / idle_total;
      if (c == STALL_IDLE)
        carry += x;
      else
        v->path[c == STALL_DATAPATH ? STALL_DATAPATH_TX : c] += x;
    }
    s = carry;
  }
  v->path[source_cause] += s;
  /* The floor, as for a DMA figure: the figure's bytes at the larger of the link's limit and the source's capacity;
   * a source with none measured (a core) leaves the whole protocol's need to the link. */
  double fl_link = mbps / limit, fl_src = source_mbps > 0 ? mbps / source_mbps : 0;
  if (fl_link > fl_src)
    v->path[STALL_LINK] += fl_link - fl_src;
  v->floor = CLAMP (MIN (fl_link, fl_src), 0.0, 1.0);
  scale_to (v->path, 1 - v->floor);
  pick (v);
  StallCause best = v->cause;
  /* The source's own capacity bounds what its transmit side allows. */
  v->bound_mbps = best == STALL_DATAPATH_TX && source_mbps > 0 ? source_mbps : NAN;
  if (best == STALL_LINK)
    g_snprintf (v->text, sizeof v->text, "limited by the link: %.0f%% of the figure's time (the wire carrying it, "
                "other traffic, DLLPs and replays); the protocol allows %.1f MB/s", v->share * 100, limit);
  else if (!isnan (v->bound_mbps))
    g_snprintf (v->text, sizeof v->text, "limited by %s: %.0f%% of the figure's time (%s); it alone would allow "
                "%.0f MB/s; the link alone would allow %.1f MB/s", stall_cause_names[best], v->share * 100,
                hop_words[best], v->bound_mbps, limit);
  else
    g_snprintf (v->text, sizeof v->text, "limited by %s: %.0f%% of the figure's time (%s); no bound of its own; "
                "the link alone would allow %.1f MB/s", stall_cause_names[best], v->share * 100,
                hop_words[best] ? hop_words[best] : stall_cause_names[best], limit);
  explain_next (v);
}
