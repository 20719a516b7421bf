/* switch.h — a PCIe switch: an upstream port, N downstream ports, and between them buffers, routing, ordering and
 * egress arbitration (pcie-protocol.md §8).
 *
 * Contract:
 * - A component of the fabric (fabric.h), role switch: port 0 faces the root, ports 1.. away from it. Each port is
 *   a link end like any other: its data link layer (Acks, replay) and flow control are the link's (link.h), and
 *   what it advertises is its link's rx_credits at its end (switch_link_params()).
 * - Routing (spec §2.2.4): a memory request (MWr, MRd, MSI) goes out of the downstream port whose bridge windows
 *   hold its address, else upstream; a completion out of the downstream port whose bus range holds its requester
 *   ID, else upstream. A TLP routed back out of the port it came in on is a routing bug (exit 70).
 * - Forwarding: a TLP may leave `latency_ps` (port to port) after its header is in (cut-through) or after the whole
 *   TLP and its LCRC are in (store-and-forward). Of it, `dll_latency_ps` is the port's receive pipeline on its link
 *   (switch_link_params(), LinkParams.end_pipelines): the data link layer's own processing, all that Acks and
 *   UpdateFCs arriving at the port see; the rest is the TLP's own, its hold time in the switch. Cut-through is the
 *   link's header delivery (link_port_set_rx_at_header()). An egress port never runs ahead of its ingress: a TLP starts on a faster egress
 *   link no earlier than lets its last byte leave after that byte came in (plus the latency); egress to a link as
 *   fast or slower starts as soon as the header allows.
 * - Buffers: per port, a TLP holds its ingress port's receive buffer (its credits) until the egress link takes it.
 *   Shared: the switch also has a central memory (`pool`, in credits per class): a TLP arriving while the pool has
 *   room for it moves there at once, so its ingress port's credits return at once (an UpdateFC later), and it holds
 *   the pool until the egress link takes it; without room it stays in its port's buffer as with per-port buffers.
 *   A pool of 0 for a type is infinite, as credits are.
 * - Queues: one per (ingress port, egress port, flow-control class), so traffic for one egress never blocks
 *   another's (no head-of-line blocking between egress ports). Ordering between the TLPs of one ingress and one
 *   egress port follows the spec's table (§2.4.1, relaxed ordering and IDO off): a posted request may pass
 *   non-posted requests and completions; a non-posted request or a completion never passes an older posted one;
 *   a completion may pass a non-posted request. So a write waiting for credits never blocks behind a read that
 *   waits for its own, which is what keeps a fabric free of ordering deadlocks.
 * - Egress arbitration among ingress ports, per egress port: round robin (one TLP per ingress port in turn, ports
 *   with nothing eligible skipped) or weighted round robin (`weights[i]` TLPs from ingress port i in a row). A TLP
 *   the egress link cannot take (credits, transmit queue, replay space) is skipped for another that it can; the
 *   link's tx-ready brings the arbiter back.
 * - Not modelled: multicast, ACS redirection, virtual channels (one VC), TLP prefixes, the switch's own
 *   configuration space as a target, link errors forwarded as nullified TLPs (a link with modelled errors feeds its
 *   switch store-and-forward, link.h; the config refuses link.ber > 0 at a cut-through switch, topology.c).
 * - No allocation per TLP: queues are TlpFifos; a TLP's hold time lives in its own hold_ps.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/fabric/fabric.h"

#define SWITCH_MAX_PORTS 64u

typedef enum { SWITCH_CUT_THROUGH, SWITCH_STORE_AND_FORWARD } SwitchForwarding;
typedef enum { SWITCH_ROUND_ROBIN, SWITCH_WEIGHTED_ROUND_ROBIN } SwitchArbitration;
typedef enum { SWITCH_BUFFER_PER_PORT, SWITCH_BUFFER_SHARED } SwitchBuffer;

typedef struct {
  uint32_t ports; /* upstream port 0 and ports - 1 downstream ports: 2..SWITCH_MAX_PORTS */
  SwitchForwarding forwarding;
  SimTime latency_ps; /* port to port, pin to pin: header (cut-through) or whole TLP (store-and-forward) in -> may
                       * leave; pcie-protocol.md §8 gives 105-160 ns for cut-through switches */
  SimTime dll_latency_ps; /* of latency_ps, a port's receive path to its data link layer: all a DLLP takes */
  /* When its ports return credits: own_updatefc FALSE = as the link's other receivers (LinkParams), else the
   * ports' own LinkParams.updatefc_latency_symbols value (0 = the spec's minimum rules only) */
  gboolean own_updatefc;
  uint32_t updatefc_latency_symbols;
  SwitchArbitration arbitration;
  uint32_t weights[SWITCH_MAX_PORTS]; /* weighted round robin: TLPs in a row per ingress port; 0 counts as 1 */
  FcCredits port_credits; /* what every port's receive buffer advertises (0 = infinite) */
  SwitchBuffer buffer;
  FcCredits pool; /* shared: the central memory per class (0 = infinite) */
} SwitchParams;

typedef struct Switch Switch;


gboolean switch_params_check (const SwitchParams *p, GError **error);
/* A switch named `name` added to `f` (the fabric frees it). */
Switch *switch_new (Fabric *f, const char *name, const SwitchParams *p);
Component *switch_component (Switch *sw);
/* The checked downcast: `c` as a switch, or NULL when it is a component of another kind. */
Switch *switch_from_component (Component *c);
/* Make `lp` right for a link whose `end` is a port of this switch: that end's receive pipeline is the port's data
 * link layer latency, its transmit pipeline 0 (both are inside the latency a datasheet gives pin to pin), it
 * advertises the port credits and returns them by the switch's UpdateFC policy when it has its own. Call before fabric_connect(): the switch checks it when the link is attached. */
void switch_link_params (const Switch *sw, LinkParams *lp, LinkEnd end);

typedef struct {
  uint64_t forwarded; /* TLPs the egress links took */
  uint64_t pooled; /* of them, held in the central memory (shared buffer) */
  uint32_t queued_high_water; /* most TLPs held at once */
} SwitchCounters;

SwitchCounters switch_counters (const Switch *sw);
