/* lspci.c — `pciesim import lspci`: the dump read into fields, the tree into parents, the config written with
 * the line each value came from. The formats are those pciutils prints (lib and ls-caps.c, ls-tree.c): see
 * lspci.h for what is read and docs/reference/pcie-protocol.md for what the registers mean. */
#include "app/import/lspci.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "app/import/lspci_dump.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/base/format.h"
#include "app/config/topology.h"
#include "app/config/ytree.h"
#include "app/study/validate.h"
#include "models/devices/hardip.h"


/* A comment's text: printable ASCII only (a device name may hold anything; a YAML comment must stay valid UTF-8). */
static void
append_clean (GString *out, const char *s, gsize max)
{
  gsize n = 0;
  for (; *s && n < max; s++, n++)
    g_string_append_c (out, *s == '\t' ? ' ' : *s >= 0x20 && *s < 0x7f ? *s : '?');
  if (*s)
    g_string_append (out, "…");
}

/* "KEY: VALUE   # FILE:LINE TEXT", the comment starting at column 36 when the line leaves room. */
static void
put (GString *out, const char *indent, const char *kv, const char *file, const Src *src, const char *why)
{
  gsize start = out->len;
  g_string_append_printf (out, "%s%s", indent, kv);
  while (out->len - start < 34)
    g_string_append_c (out, ' ');
  g_string_append (out, " # ");
  if (why)
    g_string_append (out, why);
  if (src) {
    g_string_append (out, why ? " (" : "");
    append_clean (out, file, 256);
    g_string_append_printf (out, ":%d ", src->line);
    append_clean (out, src->raw, 72);
    if (why)
      g_string_append_c (out, ')');
  }
  g_string_append_c (out, '\n');
}

static char *
size_words (uint64_t b)
{
  static const char *const units[] = { "bytes", "KB", "MB", "GB", "TB", "PB" };
  int u = 0;
  while (b >= 1024 && b % 1024 == 0 && u < 5) {
    b /= 1024;
    u++;
  }
  return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", b, units[u]);
}

/* A Region line's size ("[size=16M]") and kind; 0 when it is an I/O region, has no size or is beyond what a
 * topology's bars take. `why` says why a size is 0. */
static uint64_t
region_size (const Field *f, gboolean *bit64, const char **why)
{
  const char *s = f->text->str;
  *bit64 = strstr (s, "64-bit") != NULL;
  *why = NULL;
  if (strstr (s, "I/O ports")) {
    *why = "I/O ports: pciesim models memory BARs";
    return 0;
  }
  const char *z = strstr (s, "[size=");
  if (!z || !g_ascii_isdigit (z[6])) {
    *why = "no [size=…] on the line";
    return 0;
  }
  char *end;
  uint64_t v = g_ascii_strtoull (z + 6, &end, 10);
  const char *units = "KMGTP";
  const char *u = *end ? strchr (units, *end) : NULL;
  int shift = u ? 10 * (int) (u - units + 1) : 0;
  if (v == 0 || v > (G_GUINT64_CONSTANT (1) << 40) >> shift || (u ? end[1] : end[0]) != ']') {
    *why = "a size pciesim does not take (1 TB at most)";
    return 0;
  }
  v <<= shift;
  if (v < 128 || (v & (v - 1))) {
    *why = "not a power of two of at least 128 bytes (spec 7.5.1.2.1)";
    return 0;
  }
  return v;
}

/* One comment per Region line: the size read, or why none is used, and the line. */
static void
put_bar_comments (GString *out, const char *indent, const char *file, const Dev *d)
{
  for (int r = 0; r < 6; r++) {
    const Field *f = &d->f[F_REGION0 + r];
    if (!f->line)
      continue;
    gboolean b64;
    const char *why;
    uint64_t size = region_size (f, &b64, &why);
    g_autofree char *sz = size_words (size);
    g_string_append_printf (out, "%s#   BAR%d: %s%s%s  <- ", indent, r, why ? "none, " : sz, why ? why : "",
                            b64 && !why ? ", 64-bit" : "");
    append_clean (out, file, 256);
    g_string_append_printf (out, ":%d ", f->line);
    append_clean (out, g_array_index (f->segs, Seg, 0).raw, 90);
    g_string_append_c (out, '\n');
  }
}

static void
put_gen_lanes (GString *out, const char *indent, const char *file, const LinkVals *sta, const char *why)
{
  g_autofree char *g = g_strdup_printf ("gen: %" G_GINT64_FORMAT, sta->gen);
  g_autofree char *l = g_strdup_printf ("lanes: %" G_GINT64_FORMAT, sta->lanes);
  put (out, indent, g, file, &sta->speed, why);
  put (out, indent, l, file, &sta->width, why);
}

/* --- the device's functions ------------------------------------------------------------------------------------ */

/* A pciesim endpoint has functions 0..7 (topology.c's `functions: 1..8`, the 3-bit function number of an ID,
 * spec 2.2.6.2). */
#define MAX_FUNCTIONS 8

/* A function of the imported device as the tree or the dump shows it, for the lines `functions:` comes from. */
typedef struct {
  unsigned number; /* ARI: device << 3 | function */
  gboolean from_tree;
  const char *file;
  int line;
  const char *raw;
  const Dev *dev; /* the dump's entry, NULL for the tree's */
} FnSeen;

typedef struct {
  GArray *seen; /* of FnSeen, by number, each number's tree line before its dump line */
  unsigned self; /* the imported function's number */
  unsigned n; /* the highest number shown + 1: pciesim numbers a device's functions 0..n-1 */
} Fns;

static unsigned
fn_number (const Dev *d, unsigned dev, unsigned fn)
{
  return d->ari_line ? dev << 3 | fn : fn;
}

/* Whether an entry on `bus` is a function of d: its device number, or any when d has ARI (an ARI device is alone on
 * its bus). A bus number names one bus of a domain, so the bus says the tree's parent too. */
static gboolean
same_device (const Dev *d, unsigned domain, unsigned bus, unsigned dev)
{
  return domain == d->domain && bus == d->bus && (d->ari_line || dev == d->dev);
}

static gint
fn_order (gconstpointer a, gconstpointer b)
{
  const FnSeen *x = a, *y = b;
  if (x->number != y->number)
    return x->number < y->number ? -1 : 1;
  if (x->from_tree != y->from_tree)
    return x->from_tree ? -1 : 1;
  return x->line - y->line;
}

/* d's functions from the dump's headers and the tree's entries (`td` NULL without a tree). */
static void
collect_functions (const Text *dump, const GArray *devs, const Text *tree, const GArray *td, const Dev *d, Fns *fs)
{
  fs->seen = g_array_new (FALSE, FALSE, sizeof (FnSeen));
  fs->self = fn_number (d, d->dev, d->fn);
  fs->n = fs->self + 1;
  for (guint i = 0; i < devs->len; i++) {
    const Dev *x = &g_array_index (devs, Dev, i);
    if (same_device (d, x->domain, x->bus, x->dev)) {
      const char *raw = line_at (dump, (guint) x->line - 1)->text;
      FnSeen s = { fn_number (d, x->dev, x->fn), FALSE, dump->name, x->line, raw, x };
      g_array_append_val (fs->seen, s);
    }
  }
  for (guint i = 0; td && i < td->len; i++) {
    const TDev *x = &g_array_index (td, TDev, i);
    if (same_device (d, x->domain, x->bus, x->dev)) {
      /* From the entry's own column: "00.1  Intel …", not the drawing of the buses before it. */
      const Line *l = line_at (tree, (guint) x->line - 1);
      FnSeen s = { fn_number (d, x->dev, x->fn), TRUE, tree->name, x->line, l->text + (x->col - l->col), NULL };
      g_array_append_val (fs->seen, s);
    }
  }
  g_array_sort (fs->seen, fn_order);
  for (guint i = 0; i < fs->seen->len; i++)
    fs->n = MAX (fs->n, g_array_index (fs->seen, FnSeen, i).number + 1);
}

/* How the count n follows from the numbers shown, for the parenthesis after it. */
static void
append_count_why (GString *out, const Fns *fs)
{
  if (fs->n > MAX_FUNCTIONS) {
    g_string_append_printf (out, "ARI numbers 0-%u; a pciesim endpoint has %d at most", fs->n - 1, MAX_FUNCTIONS);
    return;
  }
  g_string_append_printf (out, "the highest function number shown, %u, + 1", fs->n - 1);
  gboolean shown[MAX_FUNCTIONS] = { FALSE };
  for (guint i = 0; i < fs->seen->len; i++)
    shown[g_array_index (fs->seen, FnSeen, i).number] = TRUE;
  g_autoptr (GString) absent = g_string_new (NULL);
  for (unsigned k = 0; k < fs->n; k++)
    if (!shown[k])
      g_string_append_printf (absent, "%s%u", absent->len ? ", " : "", k);
  if (absent->len)
    g_string_append_printf (out, ": pciesim numbers a device's functions 0..N-1, so %s, which lspci does not show, "
                            "count too, making no requests", absent->str);
}

/* The tree and dump lines the functions were read from, at most 16 (an ARI device with its VFs shows hundreds). */
static void
put_function_lines (GString *out, const char *indent, const Fns *fs)
{
  guint shown = MIN (fs->seen->len, 16);
  for (guint i = 0; i < shown; i++) {
    const FnSeen *s = &g_array_index (fs->seen, FnSeen, i);
    g_string_append_printf (out, "%s#     function %u  <- ", indent, s->number);
    append_clean (out, s->file, 256);
    g_string_append_printf (out, ":%d ", s->line);
    append_clean (out, s->raw, 90);
    g_string_append_c (out, '\n');
  }
  if (fs->seen->len > shown)
    g_string_append_printf (out, "%s#     and %u lines more\n", indent, fs->seen->len - shown);
}

/* The bridges from the root port down to the device in the tree, the device's parent last (tree indices), in
 * `chain`. A root port and a pair of ports per switch make an odd count. */
static gboolean
find_chain (const Text *dump, const Dev *d, const Text *tree, const GArray *td, GArray *chain, GError **error)
{
  int at = -1;
  for (guint i = 0; i < td->len && at < 0; i++) {
    const TDev *x = &g_array_index (td, TDev, i);
    if (x->domain == d->domain && x->bus == d->bus && x->dev == d->dev && x->fn == d->fn)
      at = (int) i;
  }
  if (at < 0) {
    ps_error_located (error, PS_ERROR_DATA, dump->name, d->line, 1, "%s is not in the tree %s: were the two taken "
                      "on one machine, both with or both without -D?", d->shown, tree->name);
    return FALSE;
  }
  /* The bridges from the root port down: `chain` holds tree indices, the device's parent last. */
  /* Collected upwards, then turned round; a chain longer than a topology can hold is refused on the way. */
  for (int p = g_array_index (td, TDev, at).parent; p >= 0 && chain->len <= 2 * PS_TOPOLOGY_MAX_NODES;
       p = g_array_index (td, TDev, p).parent)
    g_array_append_val (chain, p);
  for (guint a = 0, b = chain->len; b > a + 1; a++, b--) {
    int x = g_array_index (chain, int, a);
    g_array_index (chain, int, a) = g_array_index (chain, int, b - 1);
    g_array_index (chain, int, b - 1) = x;
  }
  const TDev *self = &g_array_index (td, TDev, at);
  guint k = chain->len;
  if (k % 2 == 0 || k / 2 + 2 > PS_TOPOLOGY_MAX_NODES) {
    ps_error_located (error, PS_ERROR_DATA, tree->name, self->line, self->col, "%s sits below %u bridges: a root "
                      "port and a pair of ports per switch make an odd number%s", d->shown, k,
                      k ? " (a PCI bridge or a hidden port in the way?)" : " (on the root bus: no link to simulate)");
    return FALSE;
  }
  return TRUE;
}

/* Each link of the chain's width and speed (lv) and the port they were read from (lsrc); the last is the device's. */
static gboolean
read_chain_links (const Text *dump, const Dev *devs, guint n_devs, const Dev *d, const Values *v, const GArray *td,
                  const GArray *chain, guint n_links, LinkVals *lv, const Dev **lsrc, GError **error)
{
  /* Each link of the chain: below the root port or a downstream port. Its width and speed are the LnkSta of the
   * port below it (the switch's upstream port) when the dump has it, else of the port above; the last link is the
   * device's own (link.gen, link.lanes). */
  for (guint j = 0; j + 1 < n_links; j++) {
    for (guint side = 0; side < 2 && !lsrc[j]; side++) {
      const TDev *b = &g_array_index (td, TDev, g_array_index (chain, int, 2 * j + (side ? 0 : 1)));
      for (guint i = 0; i < n_devs; i++) {
        const Dev *x = &devs[i];
        if (x->domain == b->domain && x->bus == b->bus && x->dev == b->dev && x->fn == b->fn && x->f[F_LNKSTA].line
            && !x->denied_line) {
          if (!lspci_read_link (dump, x, F_LNKSTA, &lv[j], error))
            return FALSE;
          lsrc[j] = x;
          break;
        }
      }
    }
  }
  lv[n_links - 1] = v->sta;
  lsrc[n_links - 1] = d;
  return TRUE;
}

/* The device's node: its BARs (function 0's, which pciesim gives them) and its functions. */
static void
put_device_node (GString *out, const Text *dump, const Dev *devs, guint n_devs, const Dev *d, const Fns *fs)
{
  /* The device's BARs from its Region lines: a 64-bit BAR takes two registers, lspci names the first. pciesim
   * gives BARs to function 0 alone (docs/fabrics.md), so they are function 0's when the dump has it. */
  unsigned functions = MIN (fs->n, MAX_FUNCTIONS);
  const Dev *bd = d;
  for (guint i = 0; i < n_devs && fs->self != 0; i++)
    if (same_device (d, devs[i].domain, devs[i].bus, devs[i].dev) && fn_number (d, devs[i].dev, devs[i].fn) == 0)
      bd = &devs[i];
  g_autoptr (GString) bars = g_string_new (NULL);
  int last = -1;
  for (int r = 0; r < 6; r++)
    if (bd->f[F_REGION0 + r].line)
      last = r;
  for (int r = 0; r <= last; r++) {
    const Field *f = &bd->f[F_REGION0 + r];
    gboolean b64 = FALSE;
    const char *why = NULL;
    uint64_t size = f->line ? region_size (f, &b64, &why) : 0;
    if (r)
      g_string_append (bars, ", ");
    if (size && b64)
      g_string_append_printf (bars, "{bytes: %" G_GUINT64_FORMAT ", bits: 64}", size);
    else
      g_string_append_printf (bars, "%" G_GUINT64_FORMAT, size);
  }
  {
    g_autofree char *fn = functions > 1 ? g_strdup_printf (", functions: %u", functions) : g_strdup ("");
    g_autofree char *kv = last >= 0 ? g_strdup_printf ("device: {type: endpoint%s, bars: [%s]}", fn, bars->str)
                                    : g_strdup_printf ("device: {type: endpoint%s}", fn);
    Src src = { bd->line, 1, line_at (dump, (guint) bd->line - 1)->text };
    const char *why = last >= 0 ? "BARs from the Region lines below" : "no Region lines: pciesim's default BAR0";
    if (bd != d)
      why = last >= 0 ? "BARs from function 0's Region lines below: pciesim gives BARs to function 0 alone"
                      : "function 0 has no Region lines: pciesim's default BAR0";
    else if (fs->self != 0)
      why = last >= 0 ? "BARs from the Region lines below, which pciesim gives function 0 (alone with BARs; the dump "
                        "lacks it)" : "no Region lines: pciesim's default BAR0";
    put (out, "    ", kv, dump->name, &src, why);
  }
  if (functions > 1) {
    g_string_append_printf (out, "    #   functions: %u (", functions);
    append_count_why (out, fs);
    if (fs->n > MAX_FUNCTIONS)
      g_string_append_printf (out, ", so %d-%u are left out", MAX_FUNCTIONS, fs->n - 1);
    g_string_append_printf (out, "); the flows are function %u's (%s, imported):\n", fs->self, d->shown);
    put_function_lines (out, "    ", fs);
  }
  put_bar_comments (out, "    ", dump->name, bd);
}

/* The tree part: the chain of bridges from the root to the device, as root complex, switches and links. */
static gboolean
write_topology (GString *out, const Text *dump, const Dev *devs, guint n_devs, const Dev *d, const Values *v,
                const Text *tree, const GArray *td, const Fns *fs, GError **error)
{
  g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (int));
  if (!find_chain (dump, d, tree, td, chain, error))
    return FALSE;
  guint n_links = chain->len / 2 + 1;
  g_autofree LinkVals *lv = g_new0 (LinkVals, n_links);
  g_autofree const Dev **lsrc = g_new0 (const Dev *, n_links);
  if (!read_chain_links (dump, devs, n_devs, d, v, td, chain, n_links, lv, lsrc, error))
    return FALSE;
  char bdf[16];
  g_string_append (out, "topology:\n  nodes:\n");
  /* The root complex and each switch take the fastest and widest of their links, so every link can train to what
   * the dump says (a link trains to the lower of its two ends, docs/fabrics.md). */
  for (guint s = 0; s < n_links; s++) {
    int64_t g = lv[s].gen, l = lv[s].lanes;
    if (s > 0 && lv[s - 1].gen) {
      g = MAX (g, lv[s - 1].gen);
      l = MAX (l, lv[s - 1].lanes);
    }
    gboolean known = lv[s].gen != 0 || (s > 0 && lv[s - 1].gen);
    g_autofree char *own = known && (g != v->sta.gen || l != v->sta.lanes)
        ? g_strdup_printf (", link: {gen: %" G_GINT64_FORMAT ", lanes: %" G_GINT64_FORMAT "}", g, l) : g_strdup ("");
    if (s == 0) {
      const TDev *rp = &g_array_index (td, TDev, g_array_index (chain, int, 0));
      lspci_format_bdf (bdf, rp->domain, rp->bus, rp->dev, rp->fn);
      g_autofree char *kv = g_strdup_printf ("host: {type: root_complex%s}", own);
      g_autofree char *why = g_strdup_printf ("root port %s", bdf);
      Src src = { rp->line, rp->col, line_at (tree, (guint) rp->line - 1)->text };
      put (out, "    ", kv, tree->name, &src, why);
    } else {
      const TDev *up = &g_array_index (td, TDev, g_array_index (chain, int, 2 * s - 1));
      const TDev *dn = &g_array_index (td, TDev, g_array_index (chain, int, 2 * s));
      char bdf2[16];
      lspci_format_bdf (bdf, up->domain, up->bus, up->dev, up->fn);
      lspci_format_bdf (bdf2, dn->domain, dn->bus, dn->dev, dn->fn);
      g_autofree char *kv = g_strdup_printf ("sw%u: {type: switch%s}", s, own);
      g_autofree char *why = g_strdup_printf ("upstream port %s, downstream port %s", bdf, bdf2);
      Src src = { up->line, up->col, line_at (tree, (guint) up->line - 1)->text };
      put (out, "    ", kv, tree->name, &src, why);
    }
  }
  put_device_node (out, dump, devs, n_devs, d, fs);
  unsigned functions = MIN (fs->n, MAX_FUNCTIONS);
  g_string_append (out, "  links:\n");
  for (guint s = 0; s < n_links; s++) {
    g_autofree char *a = s == 0 ? g_strdup ("host") : g_strdup_printf ("sw%u", s);
    g_autofree char *b = s + 1 == n_links ? g_strdup ("device") : g_strdup_printf ("sw%u", s + 1);
    if (s + 1 == n_links || !lv[s].gen) {
      g_autofree char *kv = g_strdup_printf ("- [%s, %s]", a, b);
      put (out, "    ", kv, NULL, NULL, s + 1 == n_links ? "the device's own link: link.gen and link.lanes above"
           : "neither port is in the dump: trains to link.gen and link.lanes (add the ports: lspci -vvv of the "
             "whole machine)");
    } else {
      g_autofree char *kv = g_strdup_printf ("- {a: %s, b: %s, gen: %" G_GINT64_FORMAT ", lanes: %" G_GINT64_FORMAT
                                             "}", a, b, lv[s].gen, lv[s].lanes);
      g_autofree char *why = g_strdup_printf ("LnkSta of %s", lsrc[s]->shown);
      put (out, "    ", kv, dump->name, &lv[s].speed, why);
    }
  }
  if (functions == 1) {
    g_string_append (out, "# The device writes 1 MB into host memory and reads 1 MB from it, both at once (as the DMA\n"
                          "# benchmark's simultaneous mode). Add flows, or endpoints beside it, to ask more.\n"
                          "flows:\n"
                          "  - {name: write, source: device, target: host, op: write, bytes: 1048576}\n"
                          "  - {name: read, source: device, target: host, op: read, bytes: 1048576}\n");
    return TRUE;
  }
  /* The imported function's requests carry its own ID (the JSON's requester_id); the others make none. */
  g_string_append_printf (out, "# Function %u of the device (%s, the one imported) writes 1 MB into host memory and "
                          "reads 1 MB from\n# it, both at once (as the DMA benchmark's simultaneous mode). Add flows "
                          "(from its other functions:\n# `function: F`, F below %u), or endpoints beside it, to ask "
                          "more.\nflows:\n", fs->self, d->shown, functions);
  g_string_append_printf (out, "  - {name: write, source: device, function: %u, target: host, op: write, bytes: "
                          "1048576}\n  - {name: read, source: device, function: %u, target: host, op: read, bytes: "
                          "1048576}\n", fs->self, fs->self);
  return TRUE;
}

/* --- SR-IOV virtual functions ---------------------------------------------------------------------------------- */
/* The facts and their sources, and which section numbers are unconfirmed: pcie-protocol.md §12. */

/* The physical function in the dump whose SR-IOV capability numbers d among its enabled VFs, or NULL; `k` is d's
 * VF number (1..Number of VFs). VF k's routing ID is the PF's + VF offset + (k - 1) * stride (SR-IOV 1.1 2.1.3), in
 * the PF's domain: the address decides, not the device's name. */
static const Dev *
find_pf (const Dev *devs, guint n, const Dev *d, unsigned *k)
{
  uint32_t rid = d->bus << 8 | d->dev << 3 | d->fn;
  for (guint i = 0; i < n; i++) {
    const Dev *p = &devs[i];
    if (p == d || !p->iov_vfs_line || !p->iov_offset_line || !p->iov_num_vfs || p->domain != d->domain)
      continue;
    uint64_t first = (uint64_t) (p->bus << 8 | p->dev << 3 | p->fn) + p->iov_offset;
    if (rid < first)
      continue;
    uint64_t step = rid - first;
    if (p->iov_stride ? step % p->iov_stride == 0 && step / p->iov_stride < p->iov_num_vfs : step == 0) {
      *k = (unsigned) (p->iov_stride ? step / p->iov_stride : 0) + 1;
      return p;
    }
  }
  return NULL;
}

/* Where a VF's values come from, after the file's first comment: the PF and its SR-IOV lines. */
static void
put_vf_origin (GString *o, const Text *t, const Dev *d, const Dev *pf, unsigned k)
{
  g_string_append_printf (o, "# %s is SR-IOV virtual function %u of %s, by the PF's SR-IOV capability:\n#   ", d->shown,
                          k, pf->shown);
  append_clean (o, t->name, 256);
  g_string_append_printf (o, ":%d ", pf->iov_vfs_line);
  append_clean (o, line_at (t, (guint) pf->iov_vfs_line - 1)->text, 100);
  g_string_append (o, "\n#   ");
  append_clean (o, t->name, 256);
  g_string_append_printf (o, ":%d ", pf->iov_offset_line);
  append_clean (o, line_at (t, (guint) pf->iov_offset_line - 1)->text, 100);
  g_string_append_printf (o, "\n# (VF %u's ID is the PF's + offset + %u x stride). A VF has no link of its own: its "
                          "Link fields are reserved\n# (SR-IOV 1.1 3.5; its own LnkSta is line %d), so "
                          "link.gen, link.lanes, link.read_completion_boundary\n# and the MaxPayload and ExtTag it "
                          "uses (RsvdP in a VF's DevCtl) are the PF's; link.max_read_request is its own.\n", k, k - 1,
                          d->f[F_LNKSTA].line);
}

/* --- the device's other functions' requests -------------------------------------------------------------------- */

/* After max_read_request (`tags` FALSE) or tags: one comment per other function of the dump whose value differs,
 * as the config holds one value for the device, the imported function's. A bus holds 256 functions at most, so the
 * PF searches stay within 256 passes over the devices. */
static void
put_differing (GString *o, const Text *t, const Dev *devs, guint n, const Dev *d, const Values *v, const Fns *fs,
               gboolean tags)
{
  guint shown = 0, more = 0;
  for (guint i = 0; i < fs->seen->len; i++) {
    const FnSeen *s = &g_array_index (fs->seen, FnSeen, i);
    const Dev *x = s->dev;
    if (!x || s->number == fs->self)
      continue;
    unsigned k;
    const Dev *pf = find_pf (devs, n, x, &k);
    if (x->denied_line || !x->f[F_DEVCTL].line || (pf && (pf->denied_line || !pf->f[F_DEVCTL].line)))
      continue;
    Values w = { 0 };
    gboolean ok = lspci_read_requests (t, x, pf, &w, NULL);
    g_free (w.tags_note);
    if (!ok || (tags ? w.tags == v->tags : w.mrrs == v->mrrs))
      continue;
    if (shown == 8) {
      more++;
      continue;
    }
    shown++;
    const Src *src = tags ? &w.tags_src : &w.mrrs_src;
    if (tags)
      g_string_append_printf (o, "  # function %u (%s) has %" G_GINT64_FORMAT " tags, %s: ", s->number, x->shown,
                              w.tags, w.tags_why);
    else
      g_string_append_printf (o, "  # function %u (%s) has MaxReadReq %" G_GINT64_FORMAT " bytes: ", s->number,
                              x->shown, w.mrrs);
    append_clean (o, t->name, 256);
    g_string_append_printf (o, ":%d ", src->line);
    append_clean (o, src->raw, 72);
    g_string_append_c (o, '\n');
  }
  if (more)
    g_string_append_printf (o, "  # and %u functions more differ\n", more);
  if (shown)
    g_string_append_printf (o, "  #   (the config holds one value for the device: %s's, the function imported)\n",
                            d->shown);
}

/* endpoint.datapath_bits and clock_mhz are no register lspci shows: the hard IP's interface for the link
 * (pcie-protocol.md §7, hardip_datapath_default()), and where even that (1024 bits at 500 MHz beyond the table)
 * carries less than the link's raw rate (Gen6 x16: 128 GB/s) the clock raised until it carries it, so the
 * imported figure is the link's and the device's, not a default's (issue #40). Written, and marked as chosen. */
static void
put_datapath (GString *o, int64_t gen, int64_t lanes)
{
  /* pcie-protocol.md §1: MB/s per lane after encoding (Gen6 before flit overhead, as hardip.c counts it). */
  static const double lane_mbps[] = { 0, 250, 500, 984.6, 1969, 3938, 8000 };
  int64_t bits = 0;
  double mhz = 0;
  g_autofree char *rule = hardip_datapath_default (gen, lanes, &bits, &mhz);
  double link = lane_mbps[gen] * (double) lanes, carried = (double) bits / 8 * mhz;
  g_autofree char *why = NULL;
  if (carried < link) {
    /* The key's top (1000 MHz) carries 128 GB/s at 1024 bits: every link pciesim takes (Gen6 x16 at most). */
    mhz = MIN (1000, ceil (link / ((double) bits / 8) / 50) * 50);
    why = g_strdup_printf ("ASSUMPTION, chosen by the import to carry the link (lspci does not show it): the hard "
                           "IP rule's widest, %" G_GINT64_FORMAT " bits at %.0f MHz (pcie-protocol.md §7), carries "
                           "less than Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT "'s %.0f MB/s, so its clock is "
                           "raised to %.0f MHz", bits, carried / ((double) bits / 8), gen, lanes, link, mhz);
  } else {
    why = g_strdup_printf ("ASSUMPTION, chosen by the import to carry the link (lspci does not show it): %s", rule);
  }
  char kv[64];
  g_snprintf (kv, sizeof kv, "datapath_bits: %" G_GINT64_FORMAT, bits);
  put (o, "  ", kv, NULL, NULL, why);
  g_snprintf (kv, sizeof kv, "clock_mhz: %g", mhz);
  put (o, "  ", kv, NULL, NULL, "(the same choice)");
}

/* The config text of device `d` with values `v`, after the comment block that says where it comes from. */
static gboolean
write_config (GString *o, const Text *t, const Text *tt, const GArray *td, GArray *devs, const Dev *d,
              const Dev *pf, unsigned vf_k, const Values *v, const Fns *fs, const char *host_include,
              const char *host_note, GString *notes, GError **error)
{
  g_autoptr (GString) fname = g_string_new (NULL);
  append_clean (fname, t->name, 256);
  g_string_append_printf (o, "# Imported by `pciesim import lspci` from %s, device %s:\n#   ", fname->str, d->shown);
  append_clean (o, d->desc, 100);
  g_string_append (o, "\n# Each value names the dump line it came from. The simulation runs the link as it trained "
                      "(LnkSta).\n");
  if (pf)
    put_vf_origin (o, t, d, pf, vf_k);
  if (v->sta.gen < v->cap.gen || v->sta.lanes < v->cap.lanes || v->sta.downgraded) {
    g_autofree char *msg = g_strdup_printf ("%s trained at Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT " but can run "
                                            "Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT " (LnkCap, %s:%d): the slot, "
                                            "the riser, the port above or the card limits it", v->link_dev->shown,
                                            v->sta.gen, v->sta.lanes, v->cap.gen, v->cap.lanes, fname->str,
                                            v->link_dev->f[F_LNKCAP].line);
    g_string_append_printf (o, "#\n# DOWNGRADED LINK: %s.\n# --set link.gen=%" G_GINT64_FORMAT " --set link.lanes=%"
                            G_GINT64_FORMAT " shows what the card would do at its capability.\n#\n", msg, v->cap.gen,
                            v->cap.lanes);
    if (notes)
      g_string_append_printf (notes, "pciesim: note: downgraded link: %s\n", msg);
  }
  /* A path YAML reads as a plain word stays one; any other is double-quoted with its escapes (a checkout under
   * "my, files" must not become two includes). */
  gboolean plain = host_include[0] != '\0'
      && strspn (host_include, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+-")
             == strlen (host_include);
  g_autoptr (GString) q = g_string_new (plain ? host_include : "\"");
  for (const char *c = host_include; !plain && *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (q, "\\%c", *c);
    else if ((unsigned char) *c < 0x20 || *c == 0x7f)
      g_string_append_printf (q, "\\x%02x", (unsigned char) *c);
    else
      g_string_append_c (q, *c);
  }
  if (!plain)
    g_string_append_c (q, '"');
  g_autofree char *name = g_strdup_printf ("name: lspci_%s", d->bdf);
  for (char *p = name + 6; *p; p++)
    if (*p == ':' || *p == '.')
      *p = '_';
  g_string_append_printf (o, "%s\n", name);
  g_autofree char *inc = g_strdup_printf ("include: [%s]", q->str);
  put (o, "", inc, NULL, NULL, host_note);
  g_string_append (o, "link:\n");
  put_gen_lanes (o, "  ", t->name, &v->sta, v->link_why);
  if (v->cap.gen > v->sta.gen) {
    /* A port keeps what it supports when it trains lower: one that supports 16 GT/s uses the simplified
     * REPLAY_TIMER at every rate (spec §3.6.2.1), and 10-bit tags come with that revision. */
    char sg[32];
    g_snprintf (sg, sizeof sg, "supported_gen: %" G_GINT64_FORMAT, v->cap.gen);
    put (o, "  ", sg, t->name, &v->cap.speed, "LnkCap's Max Link Speed (the port above is taken to support as much: "
         "the dump does not say)");
  }
  if (v->sta.gen != v->cap.gen || v->sta.lanes != v->cap.lanes) {
    g_string_append_printf (o, "  # capable of Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT ": %s:%d ", v->cap.gen,
                            v->cap.lanes, fname->str, v->cap.speed.line);
    append_clean (o, v->cap.speed.raw, 72);
    g_string_append_c (o, '\n');
  }
  char kv[64];
  g_snprintf (kv, sizeof kv, "max_payload: %" G_GINT64_FORMAT, v->mps);
  put (o, "  ", kv, t->name, &v->mps_src, v->mps_why);
  g_snprintf (kv, sizeof kv, "max_read_request: %" G_GINT64_FORMAT, v->mrrs);
  put (o, "  ", kv, t->name, &v->mrrs_src, NULL);
  put_differing (o, t, &g_array_index (devs, Dev, 0), devs->len, d, v, fs, FALSE);
  g_snprintf (kv, sizeof kv, "read_completion_boundary: %" G_GINT64_FORMAT, v->rcb);
  put (o, "  ", kv, t->name, &v->rcb_src, v->rcb_why);
  g_string_append (o, "endpoint:\n");
  put_datapath (o, v->sta.gen, v->sta.lanes);
  g_snprintf (kv, sizeof kv, "tags: %" G_GINT64_FORMAT, v->tags);
  put (o, "  ", kv, t->name, &v->tags_src, v->tags_why);
  if (v->tags_note)
    g_string_append_printf (o, "  # %s\n", v->tags_note);
  put_differing (o, t, &g_array_index (devs, Dev, 0), devs->len, d, v, fs, TRUE);
  if (!tt && fs->n > 1) {
    /* The dump alone tells of the other functions: the one-link benchmark has one requester, so no key. */
    g_string_append_printf (o, "# %s is function %u of %u (", d->shown, fs->self, fs->n);
    append_count_why (o, fs);
    g_string_append_printf (o, "); the one-link benchmark has one requester: --tree (lspci -tv) makes a fabric "
                            "whose device has `functions: %u`%s:\n", MIN (fs->n, MAX_FUNCTIONS),
                            fs->self >= MAX_FUNCTIONS ? " and refuses this one, beyond them" : "");
    put_function_lines (o, "", fs);
  }
  if (tt) {
    if (!write_topology (o, t, &g_array_index (devs, Dev, 0), devs->len, d, v, tt, td, fs, error))
      return FALSE;
  } else if (d->f[F_REGION0].line || d->f[F_REGION0 + 1].line || d->f[F_REGION0 + 2].line
             || d->f[F_REGION0 + 3].line || d->f[F_REGION0 + 4].line || d->f[F_REGION0 + 5].line) {
    g_string_append (o, "# BARs (a fabric's endpoint takes them as bars: with --tree; the one-link benchmark needs "
                        "none):\n");
    put_bar_comments (o, "", t->name, d);
  }
  return TRUE;
}

/* The list of devices for the usage error: "01:00.0 Ethernet controller, 02:00.0 …". */
static char *
device_list (const Dev *devs, guint n)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < n && i < 64; i++) {
    const char *colon = strchr (devs[i].desc, ':');
    gsize len = colon ? (gsize) (colon - devs[i].desc) : strlen (devs[i].desc);
    g_autofree char *what = g_strndup (devs[i].desc, MIN (len, 40));
    g_string_append_printf (s, "%s%s ", i ? ", " : "", devs[i].shown);
    append_clean (s, what, 40);
  }
  if (n > 64)
    g_string_append_printf (s, " and %u more", n - 64);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Whether bus `bus` of d's domain lies below bridge b: by its Bus: line in the dump, else by the tree. */
static gboolean
below (const Dev *b, unsigned domain, unsigned bus, const GArray *td)
{
  if (domain != b->domain)
    return FALSE;
  if (b->bus_line)
    return bus >= b->sec_bus && bus <= b->sub_bus && b->sub_bus >= b->sec_bus;
  for (guint i = 0; td && i < td->len; i++) {
    const TDev *x = &g_array_index (td, TDev, i);
    if (x->domain != domain || x->bus != bus)
      continue;
    /* x's chain of bridges: b among them? */
    for (int p = x->parent; p >= 0; p = g_array_index (td, TDev, p).parent) {
      const TDev *y = &g_array_index (td, TDev, p);
      if (y->domain == b->domain && y->bus == b->bus && y->dev == b->dev && y->fn == b->fn)
        return TRUE;
    }
  }
  return FALSE;
}

/* A root port, switch port or bridge moves no data of its own: importing it as the DMA device would simulate a
 * port as if it were a card (issue #40). Refused at its Express line (or header), naming the endpoints below it
 * (its Bus: line or the tree says which), else every endpoint the dump holds. */
static gboolean
is_dma_device (const Text *t, const Dev *devs, guint n, const Dev *d, const GArray *td, GError **error)
{
  Kind k = lspci_kind (d);
  gboolean port = k == KIND_ROOT_PORT || k == KIND_SWITCH_UP || k == KIND_SWITCH_DOWN || k == KIND_BRIDGE;
  if (!port)
    return TRUE;
  g_autoptr (GString) under = g_string_new (NULL), all = g_string_new (NULL);
  guint n_under = 0, n_all = 0;
  for (guint i = 0; i < n; i++) {
    if (lspci_kind (&devs[i]) != KIND_ENDPOINT)
      continue;
    GString *s = below (d, devs[i].domain, devs[i].bus, td) ? under : all;
    guint *c = s == under ? &n_under : &n_all;
    if (*c < 16)
      g_string_append_printf (s, "%s%s", *c ? ", " : "", devs[i].shown);
    (*c)++;
  }
  if (n_all > 16 || n_under > 16)
    g_string_append (n_under ? under : all, ", …");
  int line = d->express_line ? d->express_line : d->line;
  int col = line_at (t, (guint) line - 1)->col;
  g_autofree char *which = n_under ? g_strdup_printf ("the endpoint%s below it: %s", n_under > 1 ? "s" : "",
                                                      under->str)
                           : n_all ? g_strdup_printf ("no endpoint below it in this dump; the dump's endpoints: %s",
                                                      all->str)
                                   : g_strdup ("the dump holds no endpoint: dump the card too (`sudo lspci -vvv`)");
  ps_error_located (error, PS_ERROR_DATA, t->name, line, col, "%s is a %s, not a device that makes DMA requests: "
                    "import an endpoint with --device (%s)", d->shown, lspci_kind_name (k), which);
  return FALSE;
}

char *
ps_lspci_config (const char *dump_name, const char *dump, gsize dump_len, const char *tree_name, const char *tree,
                 gsize tree_len, const char *device, const char *host_include, const char *host_note,
                 GString *notes, GError **error)
{
  Text t = { 0 }, tt = { 0 };
  g_autoptr (GArray) devs = g_array_new (FALSE, TRUE, sizeof (Dev));
  g_array_set_clear_func (devs, (GDestroyNotify) lspci_dev_clear);
  char *result = NULL;
  Values v = { 0 };
  g_autoptr (GString) o = NULL;
  g_autoptr (GArray) td = g_array_new (FALSE, FALSE, sizeof (TDev));
  Fns fs = { 0 };
  if (!lspci_split_lines (&t, dump_name, dump, dump_len, error) || (tree && !lspci_split_lines (&tt, tree_name, tree, tree_len,
                                                                                     error)))
    goto out;
  if (!lspci_read_devices (&t, devs, error))
    goto out;
  const Dev *d = NULL;
  if (device) {
    unsigned a, b, c, e;
    int n;
    char want[16];
    if (!lspci_parse_bdf (device, FALSE, &a, &b, &c, &e, &n) || device[n]) {
      ps_error_plain (error, PS_ERROR_USAGE, "--device '%s' is no PCI address ([DDDD:]BB:DD.F, as lspci prints it)",
                      device);
      goto out;
    }
    lspci_format_bdf (want, a, b, c, e);
    for (guint i = 0; i < devs->len && !d; i++)
      if (strcmp (g_array_index (devs, Dev, i).bdf, want) == 0)
        d = &g_array_index (devs, Dev, i);
    if (!d) {
      g_autofree char *list = device_list (&g_array_index (devs, Dev, 0), devs->len);
      ps_error_plain (error, PS_ERROR_USAGE, "%s has no device %s; it holds %s", t.name, device, list);
      goto out;
    }
  } else if (devs->len > 1) {
    g_autofree char *list = device_list (&g_array_index (devs, Dev, 0), devs->len);
    ps_error_plain (error, PS_ERROR_USAGE, "%s holds %u devices: choose one with --device (%s)", t.name, devs->len,
                    list);
    goto out;
  } else {
    d = &g_array_index (devs, Dev, 0);
  }
  /* The tree is read before the values: an ARI function beyond 7 is refused before its (a VF's zero) link is. */
  if (tree && !lspci_parse_tree (&tt, td, error))
    goto out;
  if (!is_dma_device (&t, &g_array_index (devs, Dev, 0), devs->len, d, tree ? td : NULL, error))
    goto out;
  collect_functions (&t, devs, tree ? &tt : NULL, tree ? td : NULL, d, &fs);
  if (tree && fs.self >= MAX_FUNCTIONS) {
    /* The first and last it could import, written as the dump writes addresses (with the domain or without). */
    char lo[16], hi[16];
    gsize cut = strlen (d->shown) > 7 ? 0 : 5;
    lspci_format_bdf (lo, d->domain, d->bus, 0, 0);
    lspci_format_bdf (hi, d->domain, d->bus, 0, MAX_FUNCTIONS - 1);
    ps_error_located (error, PS_ERROR_DATA, t.name, d->line, 1, "%s is function %u of an ARI device (ARI numbers a "
                      "device's functions across the device numbers of its bus): a pciesim endpoint has functions "
                      "0-%d (spec 2.2.6.2's 3-bit number), so no flow can come from it; import one of %s to %s, "
                      "which share its link, or leave out --tree for the one-link benchmark", d->shown, fs.self,
                      MAX_FUNCTIONS - 1, lo + cut, hi + cut);
    goto out;
  }
  unsigned vf_k = 0;
  const Dev *pf = find_pf (&g_array_index (devs, Dev, 0), devs->len, d, &vf_k);
  if (!lspci_read_values (&t, d, pf, &v, error))
    goto out;

  o = g_string_new (NULL);
  if (!write_config (o, &t, tree ? &tt : NULL, td, devs, d, pf, vf_k, &v, &fs, host_include, host_note, notes,
                     error))
    goto out;
  result = g_string_free (g_steal_pointer (&o), FALSE);
out:
  if (fs.seen)
    g_array_unref (fs.seen);
  g_free (v.tags_note);
  lspci_text_clear (&t);
  lspci_text_clear (&tt);
  return result;
}
