/* fabric.h — a PCIe fabric: components joined port to port by links, one engine and one TLP pool for all of them,
 * and the enumeration that gives each function its ID and each BAR and bridge window its addresses.
 *
 * Contract:
 * - A component is one device of the fabric: a root complex, a switch, an endpoint. What a kind of component does
 *   is a table of functions (ComponentKind, after ROSS's tw_lptype): take a TLP that arrived on one of its ports,
 *   resume sending when a port's link can take a TLP again, learn its IDs and addresses once enumerated, check its
 *   end-of-run invariants, count its progress (the watchdog's sign of life), say what it waits for (the watchdog's
 *   message), free itself. The fabric knows nothing else of a kind: a new kind plugs in by filling a table and
 *   embedding a Component as its struct's first member.
 * - Ports face the root (FABRIC_UPSTREAM: an endpoint's port, a switch's upstream port) or away from it
 *   (FABRIC_DOWNSTREAM: a root port, a switch's downstream port); the role fixes which (fabric_add()). A link
 *   always joins a downstream-facing port, its LINK_DSP end, to an upstream-facing one, its LINK_USP end, so on
 *   every link upstream means towards the root (link.h), and the fabric is a tree.
 * - fabric_connect() makes the link and takes over both link ports' rx and tx-ready callbacks: they call the
 *   kinds' receive and tx_ready with the port. Tx-placed callbacks stay free for the components. A component owns
 *   a TLP it received (link.h: it consumes it on that port's link when it leaves the receive buffer, then frees or
 *   forwards it). Links are numbered in connect order, and link k draws its errors from LINK_RAND_ID (k, dir).
 * - fabric_enumerate(), once, after every connect and before any traffic: depth first from the root complex,
 *   ports in index order, as firmware does. The root complex is bus 0 (its own ID 00:00.0, root port i is
 *   00:(i+1).0); a downstream-facing port is a bridge: it takes the next bus number as its secondary bus, the
 *   component on its link becomes device 0 of that bus (a multi-function endpoint's function f is bus:00.f), and
 *   the bridge's subordinate bus is the last number handed out below it. A switch's downstream ports are bridges on an internal bus of their own (the number after the
 *   upstream port's), device = port index. Memory: each BAR takes the next address of its space aligned to its
 *   size (32-bit BARs from FABRIC_MMIO32_BASE, 64-bit ones from FABRIC_MMIO64_BASE); each bridge's window in a
 *   space spans its subtree's BARs, in 1 MB units (the bridge registers' granularity, spec §7.5.1.3), and is empty
 *   when the subtree has none. Every component reachable from the root complex is enumerated; one that is not is
 *   an error, as are a fabric without exactly one root complex, more than 255 buses and BARs beyond their window.
 * - Routing (spec §2.2.4): memory requests by address, completions by requester ID (by its bus: the function
 *   number only matters inside the device, which hands the completion to that function). fabric_route_address() and
 *   fabric_route_id() name the downstream-facing port of a component whose window or bus range holds the address
 *   or the ID, or NULL: a loop over the component's ports with a few compares each, no hashing, no allocation.
 * - A kind that makes requests of its own for a workload it does not drive itself (a flow's source, flow.h) says so
 *   by its requests face (ComponentRequests): a client joins its transmit side, which asks it for TLPs when it can
 *   send them, and its completions are handed back. A kind without one (a root complex, a switch, a memory, a
 *   drive that runs its own workload) is no such source, whatever its role.
 * - Errors: MODEL_ERROR_PARAM for a graph or parameter that cannot be built; a component's checks raise
 *   MODEL_ERROR_INVARIANT (models/base/model_error.h, the models' one domain).
 */
#pragma once

#include "models/base/model_error.h"
#include "models/link/link.h"


/* The PC's 32-bit MMIO hole ends below the IOAPIC at 0xFEC00000 (and the MSI window at 0xFEE00000 above it). 3 GB
 * up is a common firmware choice; 64-bit BARs go above the 1 TB any host buffer of the models reaches. */
#define FABRIC_MMIO32_BASE UINT64_C (0xC0000000)
#define FABRIC_MMIO32_LIMIT UINT64_C (0xFEBFFFFF)
#define FABRIC_MMIO64_BASE UINT64_C (0x10000000000)
#define FABRIC_MMIO64_LIMIT UINT64_C (0x7FFFFFFFFFFF)
#define FABRIC_WINDOW_ALIGN UINT64_C (0x100000)
#define FABRIC_MAX_BARS 6u
#define FABRIC_BAR_MIN_BYTES 128u /* a memory BAR asks for at least 128 bytes (spec §7.5.1.2.1) */
/* A device has up to 8 functions: the ID's function number is 3 bits (bus << 8 | device << 3 | function, spec §2.2.6.2,
 * §7.5). Each is a requester of its own (its own ID and tags) behind the device's one link. */
#define FABRIC_MAX_FUNCTIONS 8u

typedef struct Fabric Fabric;
typedef struct Component Component;
typedef struct FabricPort FabricPort;

typedef enum { COMPONENT_ROOT_COMPLEX, COMPONENT_SWITCH, COMPONENT_ENDPOINT } ComponentRole;
typedef enum { FABRIC_UPSTREAM, FABRIC_DOWNSTREAM } FabricFacing;
typedef enum { FABRIC_MEM32, FABRIC_MEM64, FABRIC_N_SPACES } FabricSpace;

/* An address range, limit inclusive as in a bridge's registers; empty when base > limit. */
typedef struct {
  uint64_t base, limit;
} FabricRange;

#define FABRIC_RANGE_EMPTY ((FabricRange) { UINT64_MAX, 0 })

typedef struct {
  uint64_t size_bytes; /* 0: not implemented; else a power of two >= FABRIC_BAR_MIN_BYTES */
  gboolean is64; /* a 64-bit BAR, placed in the 64-bit window */
  uint64_t base; /* set by fabric_enumerate() */
} FabricBar;

struct FabricPort {
  Component *comp;
  uint32_t index; /* in comp->ports */
  FabricFacing facing;
  Link *link; /* NULL until connected */
  LinkPort *link_port; /* this port's end of the link */
  FabricPort *peer; /* the port at the link's other end */
  /* A downstream-facing port's bridge registers, set by fabric_enumerate(): its own ID, the buses below it and its
   * memory windows. Empty (subordinate < secondary, empty windows) on an unconnected port. */
  uint16_t id;
  uint8_t secondary_bus, subordinate_bus;
  FabricRange window[FABRIC_N_SPACES];
};

/* What a memory (host memory, an endpoint's memory target) has sent as completions and taken in as writes: bytes
 * and address-pattern sums (pattern.h), for the run's memory ledger (run.h). */
typedef struct {
  uint64_t cpl_bytes, cpl_checksum, bytes_written, write_checksum;
} FabricMemory;

/* A client of a requesting component's transmit side (ComponentRequests): the side's arbiter asks it for its next
 * TLP when it could send one (an endpoint's datapath, datapath.h, whose clients these are). */
typedef struct {
  /* Describe the next TLP in *probe, every field (take() gets the probe back); FALSE when nothing to send. */
  gboolean (*peek) (void *ctx, Tlp *probe);
  /* Commit and return that TLP, allocated from the pool and matching the probe: `probe` is what peek() filled in
   * the same arbitration, nothing having changed in between, so a client need not describe it again. */
  Tlp *(*take) (void *ctx, const Tlp *probe);
  /* The TLP's last beat has left the application layer and the link owns it (may be NULL). */
  void (*sent) (void *ctx, const Tlp *tlp);
  /* Why the client has nothing to send now (peek said no), STALL_IDLE when it has no work (may be NULL). */
  StallCause (*why) (void *ctx);
  /* The link refused the client's TLP (its probe, or the TLP after its beats) for `why` (may be NULL). */
  void (*refused) (void *ctx, StallCause why);
} FabricTxClient;

/* A completion for one of a requesting component's functions, after its receive side. */
typedef void (*FabricCplFn) (void *ctx, const Tlp *cpl);

/* What a kind that can make requests for another's workload provides (see the contract). */
typedef struct {
  /* `client` joins the transmit side, after those before it (their order is its priority). */
  void (*add_client) (Component *c, const FabricTxClient *client, void *ctx);
  /* A client has new work (or was unblocked): the side looks again if it is idle. */
  void (*kick) (Component *c);
  /* The completions of every function of the device go to `fn`, which tells them apart by requester ID and tag,
   * instead of to the kind's own engine. */
  void (*set_completions) (Component *c, FabricCplFn fn, void *ctx);
  /* The transmit side's clock edge (its interface's unit): a client's own paces run in it, an issue the edge
   * delays does not delay the next (flow.h); read once, when a flow is made. NULL: no clock edge (0). */
  SimTime (*unit_ps) (const Component *c);
} ComponentRequests;

typedef struct {
  const char *name; /* "root complex", "endpoint", … */
  /* A TLP arrived on `port`; the component owns it (see the contract). */
  void (*receive) (Component *c, FabricPort *port, Tlp *tlp);
  /* The port's link may take a TLP again after link_port_can_send() said no. */
  void (*tx_ready) (Component *c, FabricPort *port);
  /* Called once by fabric_connect() when `port` has its link (e.g. to set a tx-placed callback). May be NULL. */
  void (*attached) (Component *c, FabricPort *port);
  /* Called once by fabric_enumerate() when the component's ID, BARs and windows are set. May be NULL. */
  void (*enumerated) (Component *c);
  /* End of run: nothing held, every count adds up. May be NULL. */
  gboolean (*check_invariants) (const Component *c, GError **error);
  /* A count that grows whenever the component takes in or produces a TLP: the deadlock watchdog's sign of life. */
  uint64_t (*progress) (const Component *c);
  /* What the component holds or waits for, appended to `out` as clauses separated by "; " (nothing when idle). */
  void (*describe_wait) (const Component *c, GString *out);
  /* The longest a healthy component may stay silent while it owes an answer (a memory's access latency): a
   * workload's watchdog adds it to its quiet bound instead of asking which kind the component is. NULL: none. */
  SimTime (*silence_ps) (const Component *c);
  /* Bytes at the start of BAR `bar` that are registers, not memory a workload may lay buffers in (a DMA engine's
   * register block). NULL: none. */
  uint64_t (*reserved_bytes) (const Component *c, uint32_t bar);
  /* A kind that can make requests for a workload it does not drive itself: its face (see the contract). NULL: it
   * cannot. */
  const ComponentRequests *requests;
  /* A component with memory: its counts so far (FabricMemory). NULL: none. */
  void (*memory) (const Component *c, FabricMemory *out);
  /* Free the component's own state and the struct itself (it was allocated by its constructor). May be NULL for a
   * component whose storage its creator owns. */
  void (*free) (Component *c);
} ComponentKind;

/* The first member of every component's struct. Filled by fabric_add() and fabric_enumerate(); read-only to the
 * component. */
struct Component {
  const ComponentKind *kind;
  Fabric *fabric;
  ComponentRole role;
  char *name;
  uint32_t index; /* in the fabric, in order of fabric_add() */
  uint32_t n_ports;
  FabricPort *ports;
  uint16_t id; /* requester/completer ID bus << 8 | device << 3 | function, set by fabric_enumerate() */
  /* The device's functions (1..FABRIC_MAX_FUNCTIONS): function f's ID is id | f, on the device's one link. Set by an
   * endpoint's constructor; fabric_add() makes 0 into 1. */
  uint32_t n_functions;
  gboolean enumerated;
  FabricBar bars[FABRIC_MAX_BARS]; /* an endpoint's; sizes set by its constructor, bases by the enumeration */
};

/* A fresh engine (seeded with `seed`) and TLP pool, no component. */
Fabric *fabric_new (uint64_t seed);
/* Frees every component (kind->free), link, the pool and the engine. */
void fabric_free (Fabric *f);
SimEngine *fabric_engine (const Fabric *f);
TlpPool *fabric_pool (const Fabric *f);
/* TLPs delivered over a link to a component so far, every link and direction, replays of one TLP counted once:
 * a run's protocol work whatever its shape (one link or a tree), which scripts/bench reports per CPU second. */
uint64_t fabric_tlps_delivered (const Fabric *f);

/* Register `c` (zero-filled but for what its constructor set: bars, n_functions) as a component of `role` with `n_ports` ports:
 * a root complex's all face downstream, an endpoint has one, facing upstream, a switch's port 0 faces upstream
 * and the others downstream. The fabric frees it with kind->free. */
void fabric_add (Fabric *f, Component *c, const ComponentKind *kind, ComponentRole role, const char *name,
  uint32_t n_ports);

/* Join port `dsp_port` of `dsp` (facing downstream) to port `usp_port` of `usp` (facing upstream) with a link of
 * `params` (its rand_index is replaced by the link's number). Refused (MODEL_ERROR_PARAM, or the link's own
 * parameter error): a port that does not exist, is already connected or faces the wrong way, a component linked
 * to itself, a fabric already enumerated. */
Link *fabric_connect (Fabric *f, Component *dsp, uint32_t dsp_port, Component *usp, uint32_t usp_port,
  const LinkParams *params, GError **error);
gboolean fabric_enumerate (Fabric *f, GError **error);

guint fabric_n_components (const Fabric *f);
Component *fabric_component (const Fabric *f, guint i);
guint fabric_n_links (const Fabric *f);
Link *fabric_link (const Fabric *f, guint i);
/* "DSP-USP" by the components' names, e.g. "host-endpoint" (owned by the fabric). */
const char *fabric_link_name (const Fabric *f, guint i);
/* The link above a component (its upstream-facing port 0's), or NULL. */
Link *fabric_uplink (const Component *c);

/* The downstream-facing port of `c` whose memory windows hold `address`, or NULL. */
static inline FabricPort *
fabric_route_address (const Component *c, uint64_t address)
{
  for (uint32_t i = 0; i < c->n_ports; i++) {
    FabricPort *p = &c->ports[i];
    if ((address >= p->window[FABRIC_MEM32].base && address <= p->window[FABRIC_MEM32].limit)
        || (address >= p->window[FABRIC_MEM64].base && address <= p->window[FABRIC_MEM64].limit))
      return p;
  }
  return NULL;
}

/* The downstream-facing port of `c` whose bus range holds the bus of `id`, or NULL. */
static inline FabricPort *
fabric_route_id (const Component *c, uint16_t id)
{
  uint8_t bus = (uint8_t) (id >> 8);
  for (uint32_t i = 0; i < c->n_ports; i++) {
    FabricPort *p = &c->ports[i];
    if (p->facing == FABRIC_DOWNSTREAM && bus >= p->secondary_bus && bus <= p->subordinate_bus)
      return p;
  }
  return NULL;
}

/* The BAR of `c` holding `address` (its index), or -1; *offset is the address's offset in it. */
int fabric_bar_of (const Component *c, uint64_t address, uint64_t *offset);

/* A TLP has reached the component it was for: a root complex's memory or software, an endpoint's application
 * (after its receive interface). The component calls fabric_delivered() before acting on it, and the fabric's
 * observer, when one is set, may read the TLP but not keep it: what a run measuring flows of traffic watches. */
typedef void (*FabricObserverFn) (void *ctx, const Component *c, const Tlp *tlp);
void fabric_set_observer (Fabric *f, FabricObserverFn fn, void *ctx);
void fabric_delivered (const Component *c, const Tlp *tlp);

/* Every link's and component's end-of-run checks, links first (their messages name the broken mechanism), in
 * order of creation. */
gboolean fabric_check_invariants (const Fabric *f, GError **error);
/* `c`'s memory counts (the kind's memory hook); FALSE for a kind without memory. */
gboolean fabric_memory (const Component *c, FabricMemory *out);
/* The sum of every component's progress count. */
uint64_t fabric_progress (const Fabric *f);
/* What every component and then every link waits for, each clause led by its name: "endpoint: …; host: …;
 * host-endpoint: link upstream: …". Nothing when all are idle. */
void fabric_describe_wait (const Fabric *f, GString *out);
