/* fabric.c — the component graph, its links and its enumeration (contract in fabric.h).
 *
 * The fabric is bookkeeping around the components: it owns them, the links and the shared engine and pool, turns
 * link callbacks into calls of a kind's table, and runs the enumeration. Nothing here is on the per-TLP path but
 * the two trampolines below and the inline routing helpers of fabric.h.
 */
#include "models/fabric/fabric.h"

struct Fabric {
  SimEngine *engine;
  TlpPool *pool;
  GPtrArray *components; /* Component *, in order of fabric_add() */
  GPtrArray *links; /* Link *, in order of fabric_connect() */
  GPtrArray *link_names; /* char *, the same order */
  gboolean enumerated;
  FabricObserverFn observer;
  void *observer_ctx;
  uint64_t tlps_delivered; /* TLPs that crossed a link into a component: the benchmark's unit of work */
};

Fabric *
fabric_new (uint64_t seed)
{
  Fabric *f = g_new0 (Fabric, 1);
  f->engine = sim_engine_new (seed);
  f->pool = tlp_pool_new ();
  f->components = g_ptr_array_new ();
  f->links = g_ptr_array_new ();
  f->link_names = g_ptr_array_new_with_free_func (g_free);
  return f;
}

/* Components go first: their own teardown may hand TLPs back to the pool, and the links return what they still
 * hold (link_free), so the pool outlives both. */
void
fabric_free (Fabric *f)
{
  if (f == NULL)
    return;
  for (guint i = 0; i < f->components->len; i++) {
    Component *c = g_ptr_array_index (f->components, i);
    g_free (c->name);
    g_free (c->ports);
    if (c->kind->free != NULL)
      c->kind->free (c);
  }
  for (guint i = 0; i < f->links->len; i++)
    link_free (g_ptr_array_index (f->links, i));
  g_ptr_array_free (f->components, TRUE);
  g_ptr_array_free (f->links, TRUE);
  g_ptr_array_free (f->link_names, TRUE);
  tlp_pool_free (f->pool);
  sim_engine_free (f->engine);
  g_free (f);
}

SimEngine *
fabric_engine (const Fabric *f)
{
  return f->engine;
}

uint64_t
fabric_tlps_delivered (const Fabric *f)
{
  return f->tlps_delivered;
}

TlpPool *
fabric_pool (const Fabric *f)
{
  return f->pool;
}

void
fabric_add (Fabric *f, Component *c, const ComponentKind *kind, ComponentRole role, const char *name,
  uint32_t n_ports)
{
  g_assert (n_ports >= 1 && (role != COMPONENT_ENDPOINT || n_ports == 1) && !f->enumerated);
  c->kind = kind;
  c->fabric = f;
  c->role = role;
  c->name = g_strdup (name);
  c->index = f->components->len;
  c->n_ports = n_ports;
  c->n_functions = MAX (c->n_functions, 1u);
  g_assert (c->n_functions <= FABRIC_MAX_FUNCTIONS && (role == COMPONENT_ENDPOINT || c->n_functions == 1));
  c->ports = g_new0 (FabricPort, n_ports);
  for (uint32_t i = 0; i < n_ports; i++) {
    FabricPort *p = &c->ports[i];
    p->comp = c;
    p->index = i;
    p->facing = role == COMPONENT_ROOT_COMPLEX || (role == COMPONENT_SWITCH && i > 0) ? FABRIC_DOWNSTREAM
                                                                                      : FABRIC_UPSTREAM;
    /* Nothing below until enumerated: no bus, no address routes here. */
    p->secondary_bus = 1;
    p->subordinate_bus = 0;
    p->window[FABRIC_MEM32] = p->window[FABRIC_MEM64] = FABRIC_RANGE_EMPTY;
  }
  g_ptr_array_add (f->components, c);
}

/* The link's callbacks, turned into calls of the kind's table with the port: the one indirection the graph adds
 * per TLP. */
static void
port_rx (void *ctx, LinkPort *lp, Tlp *tlp)
{
  FabricPort *p = ctx;
  p->comp->fabric->tlps_delivered++;
  p->comp->kind->receive (p->comp, p, tlp);
}

static void
port_tx_ready (void *ctx, LinkPort *lp)
{
  FabricPort *p = ctx;
  p->comp->kind->tx_ready (p->comp, p);
}

static gboolean
port_check (Fabric *f, Component *c, uint32_t i, FabricFacing facing, GError **error)
{
  if (c->fabric != f || i >= c->n_ports) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s has no port %u (it has %u)", c->name, i, c->n_ports);
    return FALSE;
  }
  if (c->ports[i].link != NULL) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s port %u is used by two links", c->name, i);
    return FALSE;
  }
  if (c->ports[i].facing != facing) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s port %u faces %s: a link joins a port facing away "
                 "from the root to one facing it", c->name, i, c->ports[i].facing == FABRIC_UPSTREAM
                 ? "the root (an upstream port)" : "away from the root (a downstream port)");
    return FALSE;
  }
  return TRUE;
}

Link *
fabric_connect (Fabric *f, Component *dsp, uint32_t dsp_port, Component *usp, uint32_t usp_port,
  const LinkParams *params, GError **error)
{
  if (f->enumerated) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "links must be made before the fabric is enumerated");
    return NULL;
  }
  if (dsp == usp) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s is linked to itself", dsp->name);
    return NULL;
  }
  if (!port_check (f, dsp, dsp_port, FABRIC_DOWNSTREAM, error) || !port_check (f, usp, usp_port, FABRIC_UPSTREAM, error)
      || !link_params_validate (params, error))
    return NULL;
  LinkParams lp = *params;
  lp.rand_index = f->links->len;
  Link *l = link_new (f->engine, &lp, f->pool);
  FabricPort *a = &dsp->ports[dsp_port], *b = &usp->ports[usp_port];
  a->link = b->link = l;
  a->link_port = link_port (l, LINK_DSP);
  b->link_port = link_port (l, LINK_USP);
  a->peer = b;
  b->peer = a;
  for (FabricPort *p = a; p != NULL; p = p == a ? b : NULL) {
    link_port_set_rx (p->link_port, port_rx, p);
    link_port_set_tx_ready (p->link_port, port_tx_ready, p);
  }
  g_ptr_array_add (f->links, l);
  g_ptr_array_add (f->link_names, g_strdup_printf ("%s-%s", dsp->name, usp->name));
  if (dsp->kind->attached != NULL)
    dsp->kind->attached (dsp, a);
  if (usp->kind->attached != NULL)
    usp->kind->attached (usp, b);
  return l;
}

/* --- enumeration ------------------------------------------------------------------------------------------ */

typedef struct {
  guint next_bus; /* the next bus number to hand out */
  uint64_t cursor[FABRIC_N_SPACES]; /* the next free address of each space */
  GError **error;
} Enum;

static const uint64_t space_limit[FABRIC_N_SPACES] = { FABRIC_MMIO32_LIMIT, FABRIC_MMIO64_LIMIT };

static gboolean enum_component (Enum *en, Component *c, uint8_t bus, uint8_t device);

static uint64_t
align_up (uint64_t v, uint64_t a)
{
  return (v + a - 1) & ~(a - 1);
}

static gboolean
next_bus (Enum *en, uint8_t *bus)
{
  if (en->next_bus > 255) {
    g_set_error (en->error, MODEL_ERROR, MODEL_ERROR_PARAM, "more than 255 buses: the fabric is too deep or wide");
    return FALSE;
  }
  *bus = (uint8_t) en->next_bus++;
  return TRUE;
}

/* A downstream-facing port `p` (device `device` on `bus`) as a bridge: the buses and addresses of everything below
 * it. Windows start and end on 1 MB boundaries, so sibling bridges never share a unit of the granularity. */
static gboolean
enum_bridge (Enum *en, FabricPort *p, uint8_t bus, uint8_t device)
{
  p->id = (uint16_t) (bus << 8 | device << 3);
  if (p->link == NULL)
    return TRUE; /* an empty slot: no bus, no window */
  uint64_t start[FABRIC_N_SPACES];
  for (int s = 0; s < FABRIC_N_SPACES; s++)
    start[s] = en->cursor[s] = align_up (en->cursor[s], FABRIC_WINDOW_ALIGN);
  uint8_t secondary;
  if (!next_bus (en, &secondary))
    return FALSE;
  p->secondary_bus = secondary;
  if (!enum_component (en, p->peer->comp, secondary, 0))
    return FALSE;
  p->subordinate_bus = (uint8_t) (en->next_bus - 1);
  for (int s = 0; s < FABRIC_N_SPACES; s++) {
    en->cursor[s] = align_up (en->cursor[s], FABRIC_WINDOW_ALIGN);
    p->window[s] = en->cursor[s] > start[s] ? (FabricRange) { start[s], en->cursor[s] - 1 } : FABRIC_RANGE_EMPTY;
  }
  return TRUE;
}

static gboolean
enum_component (Enum *en, Component *c, uint8_t bus, uint8_t device)
{
  if (c->enumerated) {
    g_set_error (en->error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s is reached twice: a PCIe fabric is a tree",
                 c->name);
    return FALSE;
  }
  c->enumerated = TRUE;
  c->id = (uint16_t) (bus << 8 | device << 3);
  for (guint i = 0; i < FABRIC_MAX_BARS; i++) {
    FabricBar *b = &c->bars[i];
    if (b->size_bytes == 0)
      continue;
    FabricSpace s = b->is64 ? FABRIC_MEM64 : FABRIC_MEM32;
    b->base = align_up (en->cursor[s], b->size_bytes);
    if (b->base < en->cursor[s] || b->base - 1 + b->size_bytes > space_limit[s]) {
      g_set_error (en->error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s BAR%u (%" G_GUINT64_FORMAT " bytes) does not "
                   "fit in the %s-bit memory window", c->name, i, b->size_bytes, b->is64 ? "64" : "32");
      return FALSE;
    }
    en->cursor[s] = b->base + b->size_bytes;
  }
  if (c->role == COMPONENT_ROOT_COMPLEX) {
    for (uint32_t i = 0; i < c->n_ports; i++)
      if (!enum_bridge (en, &c->ports[i], bus, (uint8_t) (i + 1)))
        return FALSE;
  } else if (c->role == COMPONENT_SWITCH) {
    /* The upstream port is the function on `bus`; its downstream ports share an internal bus below it. */
    uint8_t internal;
    if (!next_bus (en, &internal))
      return FALSE;
    for (uint32_t i = 1; i < c->n_ports; i++)
      if (!enum_bridge (en, &c->ports[i], internal, (uint8_t) (i - 1)))
        return FALSE;
  }
  return TRUE;
}

gboolean
fabric_enumerate (Fabric *f, GError **error)
{
  g_assert (!f->enumerated);
  Component *root = NULL;
  for (guint i = 0; i < f->components->len; i++) {
    Component *c = g_ptr_array_index (f->components, i);
    if (c->role != COMPONENT_ROOT_COMPLEX)
      continue;
    if (root != NULL) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "two root complexes (%s and %s): one fabric has one",
                   root->name, c->name);
      return FALSE;
    }
    root = c;
  }
  if (root == NULL) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "no root complex");
    return FALSE;
  }
  for (guint i = 0; i < f->components->len; i++) {
    Component *c = g_ptr_array_index (f->components, i);
    for (guint b = 0; b < FABRIC_MAX_BARS; b++) {
      uint64_t n = c->bars[b].size_bytes;
      if (n != 0 && (n < FABRIC_BAR_MIN_BYTES || (n & (n - 1)) != 0)) {
        g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s BAR%u of %" G_GUINT64_FORMAT " bytes: a BAR is a "
                     "power of two of at least %u bytes", c->name, b, n, FABRIC_BAR_MIN_BYTES);
        return FALSE;
      }
    }
  }
  Enum en = { .next_bus = 1, .cursor = { FABRIC_MMIO32_BASE, FABRIC_MMIO64_BASE }, .error = error };
  if (!enum_component (&en, root, 0, 0))
    return FALSE;
  for (guint i = 0; i < f->components->len; i++) {
    Component *c = g_ptr_array_index (f->components, i);
    if (!c->enumerated) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s is not connected to the root complex", c->name);
      return FALSE;
    }
  }
  f->enumerated = TRUE;
  for (guint i = 0; i < f->components->len; i++) {
    Component *c = g_ptr_array_index (f->components, i);
    if (c->kind->enumerated != NULL)
      c->kind->enumerated (c);
  }
  return TRUE;
}

/* --- queries ----------------------------------------------------------------------------------------------- */

guint
fabric_n_components (const Fabric *f)
{
  return f->components->len;
}

Component *
fabric_component (const Fabric *f, guint i)
{
  return g_ptr_array_index (f->components, i);
}

guint
fabric_n_links (const Fabric *f)
{
  return f->links->len;
}

Link *
fabric_link (const Fabric *f, guint i)
{
  return g_ptr_array_index (f->links, i);
}

const char *
fabric_link_name (const Fabric *f, guint i)
{
  return g_ptr_array_index (f->link_names, i);
}

Link *
fabric_uplink (const Component *c)
{
  return c->ports[0].facing == FABRIC_UPSTREAM ? c->ports[0].link : NULL;
}

int
fabric_bar_of (const Component *c, uint64_t address, uint64_t *offset)
{
  for (guint i = 0; i < FABRIC_MAX_BARS; i++) {
    const FabricBar *b = &c->bars[i];
    if (b->size_bytes != 0 && address >= b->base && address - b->base < b->size_bytes) {
      *offset = address - b->base;
      return (int) i;
    }
  }
  return -1;
}

void
fabric_set_observer (Fabric *f, FabricObserverFn fn, void *ctx)
{
  f->observer = fn;
  f->observer_ctx = ctx;
}

void
fabric_delivered (const Component *c, const Tlp *tlp)
{
  if (c->fabric->observer != NULL)
    c->fabric->observer (c->fabric->observer_ctx, c, tlp);
}

gboolean
fabric_check_invariants (const Fabric *f, GError **error)
{
  for (guint i = 0; i < f->links->len; i++)
    if (!link_check_invariants (g_ptr_array_index (f->links, i), error))
      return FALSE;
  for (guint i = 0; i < f->components->len; i++) {
    const Component *c = g_ptr_array_index (f->components, i);
    if (c->kind->check_invariants != NULL && !c->kind->check_invariants (c, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
fabric_memory (const Component *c, FabricMemory *out)
{
  if (c->kind->memory == NULL)
    return FALSE;
  c->kind->memory (c, out);
  return TRUE;
}

uint64_t
fabric_progress (const Fabric *f)
{
  uint64_t n = 0;
  for (guint i = 0; i < f->components->len; i++) {
    const Component *c = g_ptr_array_index (f->components, i);
    if (c->kind->progress != NULL)
      n += c->kind->progress (c);
  }
  return n;
}

/* Each part is described into its own buffer first, so an idle one adds nothing, not even its name. */
static void
append_named (GString *out, const char *name, GString *part)
{
  if (part->len > 0)
    g_string_append_printf (out, "%s%s: %s", out->len ? "; " : "", name, part->str);
  g_string_truncate (part, 0);
}

void
fabric_describe_wait (const Fabric *f, GString *out)
{
  g_autoptr (GString) part = g_string_new (NULL);
  for (guint i = 0; i < f->components->len; i++) {
    const Component *c = g_ptr_array_index (f->components, i);
    if (c->kind->describe_wait != NULL)
      c->kind->describe_wait (c, part);
    append_named (out, c->name, part);
  }
  for (guint i = 0; i < f->links->len; i++) {
    link_describe_wait (g_ptr_array_index (f->links, i), part);
    append_named (out, g_ptr_array_index (f->link_names, i), part);
  }
}
