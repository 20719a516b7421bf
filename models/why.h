/* why.h — why a DMA figure is what it is: over the figure's windows, how each transmitter spent its time (busy by
 * category, idle by cause, stall.h), which resource bounds each figure and by how much, and the latencies.
 *
 * Contract:
 * - One Why per workload (an endpoint with a chaining DMA, its uplink, the root port at the far end), made once the
 *   fabric is enumerated and before traffic; it only reads the models' clocks and counters at window edges, and
 *   adds one observer of the TLPs delivered to the root port (a posted write's one-way latency: committed by the
 *   DMA -> delivered to the root complex). Nothing it does schedules an event or changes a model's state.
 * - Windows are the figures' (system.h: every iteration's counter window). why_open() and why_close() bracket
 *   each; the fractions are over their summed length.
 * - Transmitters: both directions of the uplink ("linkN.up", "linkN.down": busy as link usage, idle by the
 *   direction's clock, scaled to the idle share so that busy + idle = 1) and the endpoint's datapath
 *   ("NAME.datapath": busy beats by kind, turnarounds and gaps, idle by its clock).
 * - Verdict for a figure (read: completions come down; write: posted writes go up): each cause gets a pressure,
 *   the share of the window it held the figure's data direction idle; the link's is that direction's busy
 *   share, the datapath's at least the busy share of its side (transmit for writes, receive for reads). The
 *   largest pressure bounds the figure; the next is named too. A bound is stated in MB/s only from the
 *   resource's own capacity: its size and its measured round trip (Little's law: credits x bytes / credit round
 *   trip; tags x MRRS / read round trip), or the datapath's beats per steady TLP on its clock. A cause with no
 *   capacity of its own (host latency, descriptor fetch, replay buffer, software) states none (bound_mbps NaN)
 *   and its text says so; a bound is never the figure divided by a share.
 */
#pragma once

#include "models/dma_chain.h"
#include "models/host.h"
#include "models/stall.h"

#define WHY_MAX_BUSY 6

typedef struct {
  char name[48];
  guint n_busy;
  const char *busy_name[WHY_MAX_BUSY];
  double busy[WHY_MAX_BUSY]; /* fractions of the windows */
  double idle[STALL_COUNT]; /* fractions; with busy they sum to 1 */
} WhyTransmitter;

typedef struct {
  gboolean valid;
  StallCause cause, next; /* the bound, and the runner-up */
  double share, next_share; /* their pressures */
  double bound_mbps; /* what the bounding resource alone allows; NaN for the link (its limit is link_mbps) and
                      * where the cause has no capacity of its own */
  double link_mbps; /* the protocol limit of the figure's data */
  char text[400]; /* "limited by …", one line */
} WhyVerdict;

#define WHY_TRANSMITTERS 3

typedef struct {
  WhyTransmitter tx[WHY_TRANSMITTERS]; /* uplink up, uplink down, datapath */
  WhyVerdict verdict[DMA_DIR_COUNT]; /* per figure, DmaDir order: write, read */
  LatSummary read_latency; /* per data MRd: committed -> last completion taken in */
  LatSummary write_latency; /* per posted write: committed -> delivered to the root complex */
  double first_fetch_ns[DMA_DIR_COUNT]; /* mean over runs of the first descriptor fetch, 0 when none */
} WhyResult;

typedef struct Why Why;

/* `link_name` names the uplink's directions ("link0"); `ep_name` the datapath ("endpoint"). The parameter
 * structs are borrowed for the verdicts' texts and must outlive the Why. */
Why *why_new (SimEngine *engine, Link *link, const char *link_name, App *app, const AppParams *ap, DmaChain *dma,
  const DmaParams *dp, const HostParams *hp, uint16_t requester, const char *ep_name);
void why_free (Why *w);
void why_open (Why *w, SimTime now);
/* The window ends at `stop` (>= its start; may lie a little ahead of now, as a write counter's stop does). */
void why_close (Why *w, SimTime stop);
/* usage: the link usage over the same windows, by LinkDir; mbps: the figures, by DmaDir (NaN: not run). */
void why_result (Why *w, const LinkUsage usage[2], const double mbps[DMA_DIR_COUNT], WhyResult *out);
