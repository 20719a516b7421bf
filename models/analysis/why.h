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
 * - Verdict for a figure (read: completions come down; write: posted writes go up), docs/why.md: the figure's
 *   window is split over causes that add up to it, and the verdict names the cause with the largest share of the
 *   figure's critical path above its floor. The floor is the time the figure's bytes need at the larger of the
 *   two capacities its data crosses (the link's protocol limit, the datapath side's beats); what no relief of a
 *   single cause can take away. The rest is walked back from the figure's data transmitter (the link direction
 *   that carries it): its busy time beyond the protocol's need for the figure's bytes is the link's (other
 *   traffic, DLLPs, replays); each idle stretch belongs to the cause its clock holds, which already follows the
 *   sender back (the DMA engine, the root complex, a refining requester); a wait for the datapath is walked into
 *   the datapath's own time (its beats -> datapath_tx, its waits -> theirs). Of the two capacities, the smaller
 *   one takes the difference of the two floors (the link when it is slower than the datapath side, else that
 *   side: datapath_rx for reads). A software-timed figure's window also holds the driver's time (why_set_software):
 *   the share of the window outside the hardware's windows is `software`, split by phase in proportion of the
 *   driver's mean cost per phase.
 * - Bounds: "it alone would allow N MB/s" only from the resource's own capacity: the link's protocol limit
 *   (link_mbps), the datapath side's beats per steady TLP on its clock (a write's share of the transmit side also
 *   pays for the read requests and turnarounds it carried per write TLP), credits x bytes / credit round trip,
 *   tags x MRRS / read round trip, host concurrency / latency, the return path's time per completion, the
 *   transfer over the driver's time per transfer. A cause with no capacity of its own (host latency, descriptor
 *   fetch, replay buffer, switch port) states none (bound_mbps NaN) and its text says so; a bound is never the
 *   figure divided by a share.
 */
#pragma once

#include "models/devices/dma_chain.h"
#include "models/devices/host.h"
#include "models/observe/stall.h"

#define WHY_MAX_BUSY 6

typedef struct {
  char name[48];
  guint n_busy;
  const char *busy_name[WHY_MAX_BUSY];
  double busy[WHY_MAX_BUSY]; /* fractions of the windows */
  double idle[STALL_COUNT]; /* fractions; with busy they sum to 1 */
} WhyTransmitter;

/* The driver's phases of a software-timed figure (docs/why.md); names in why_software_phase_names. */
typedef enum { WHY_SW_SETUP, WHY_SW_DESCRIPTORS, WHY_SW_INTERRUPT, WHY_SW_WAKEUP, WHY_SW_POLL, WHY_SW_PHASES } WhySwPhase;
extern const char *const why_software_phase_names[WHY_SW_PHASES];

typedef struct {
  gboolean valid;
  StallCause cause, next; /* the bound, and the runner-up */
  double share, next_share; /* their shares of the figure's window (path[]) */
  double path[STALL_COUNT]; /* the window by cause: floor + sum = 1 */
  double floor; /* see the contract */
  double software_ns[WHY_SW_PHASES]; /* per transfer, by phase; all 0 unless software-timed */
  double bound_mbps; /* what the bounding resource alone allows; NaN for the link (its limit is link_mbps) and
                      * where the cause has no capacity of its own */
  double link_mbps; /* the protocol limit of the figure's data */
  char text[480]; /* "limited by …", one line */
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
/* A software-timed figure of `dir`: its bytes per transfer, the figure's window per transfer (the driver's) and
 * the hardware's inside it (the counter windows), and the driver's mean cost per transfer by phase (weights of
 * the split). Before why_result(). */
void why_set_software (Why *w, DmaDir dir, double bytes, double window_ns, double hardware_ns,
  const double phase_ns[WHY_SW_PHASES]);
/* usage: the link usage over the same windows, by LinkDir; mbps: the figures, by DmaDir (NaN: not run). */
void why_result (Why *w, const LinkUsage usage[2], const double mbps[DMA_DIR_COUNT], WhyResult *out);

/* A figure measured over one window on a chain of link directions, in the order its TLPs travel (a fabric's flow,
 * the microbench, PIO; a read: its requests' hops, then its completions'): each hop's usage and idle time by cause
 * over the window, the protocol limit of the figure's data on it (0: a request hop, which carries none), and
 * whether a switch's egress port sends on it. */
typedef struct {
  LinkUsage usage;
  double idle_ps[STALL_COUNT];
  double limit_mbps;
  gboolean from_switch;
} WhyHop;

/* The same attribution (docs/why.md) walked back along the hops from the last: each hop's wire time beyond the
 * figure's need is the link's (switch_port for a switch's egress), its waits their causes', its "nothing to send"
 * the hop before's, and at the first hop `source_cause`'s (datapath_tx for a device, software for a core). The
 * floor is the figure's bytes at the larger of the smallest protocol limit (link_mbps) and `source_mbps`, the
 * source's own capacity (0: none measured, the floor is the link's). bound_mbps is NaN: no window or round trip
 * is measured on a path. */
void why_hops_verdict (const WhyHop *hops, guint n, double mbps, StallCause source_cause, double source_mbps,
  WhyVerdict *v);

/* What an application datapath alone allows TLPs of `payload` bytes behind `header_bytes` of header: its beats by
 * the interface's rule (avst.h) on its clock, with the transmit gap (rx FALSE) or the receive overhead (rx TRUE). */
double why_datapath_capacity_mbps (const AppParams *ap, gboolean rx, uint32_t payload, uint32_t header_bytes);
