/* machine.c — `pciesim machine`: the whole machine's functions, links, settings and ceilings (contract in
 * machine.h). The dump is read by lspci_dump.c, as `import lspci` reads it; the ceilings come from the link model's
 * protocol limit on the config such an import would write. */
#include "app/import/machine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "app/base/error.h"
#include "app/config/load.h"
#include "app/config/ytree.h"
#include "app/import/lspci_dump.h"
#include "app/run/builder.h"
#include "app/study/validate.h"
#include "models/link/link.h"

/* The spec's largest Max_Read_Request_Size (spec 7.5.3.4: 4096 bytes). */
#define MRRS_MAX 4096

typedef struct {
  const Dev *d;
  Kind kind;
  char *name; /* after the class: "Netronome Systems, Inc. Device 6000" */
  gboolean has_link, down, denied, vf;
  gboolean path_known; /* the port above is in the dump, so mps_cap counts it */
  LinkVals sta, cap; /* cap: its own LnkCap */
  int64_t both_gen, both_lanes; /* what both ends can run */
  gboolean downgraded;
  char *cause; /* in words, or NULL */
  int parent; /* the port above (row index), -1 */
  int64_t mps, mps_cap, mrrs, tags, tags_cap;
  int ro; /* relaxed ordering enabled: 1, 0, -1 unknown */
  double rd, wr, cap_rd, cap_wr; /* MB/s; NAN without a link */
  char *limited_by;
} Row;

/* The rows own their text; the Dev they point into is the dump's array, freed with it. */
static void
row_clear (Row *r)
{
  g_free (r->name);
  g_free (r->cause);
  g_free (r->limited_by);
}

/* The function 0 on a port's secondary bus: the other end of its link. */
static int
below_port (const Row *rows, guint n, const Row *port)
{
  if (!port->d->bus_line)
    return -1;
  for (guint i = 0; i < n; i++)
    if (rows[i].d->domain == port->d->domain && rows[i].d->bus == port->d->sec_bus && rows[i].d->fn == 0
        && rows[i].parent >= 0 && &rows[rows[i].parent] == port)
      return (int) i;
  return -1;
}

/* The port above each function: the bridge whose secondary bus is its bus (the dump's Bus: lines), else the
 * tree's parent. */
static void
find_parents (Row *rows, guint n, const GArray *td)
{
  for (guint i = 0; i < n; i++) {
    const Dev *d = rows[i].d;
    rows[i].parent = -1;
    for (guint j = 0; j < n && rows[i].parent < 0; j++)
      if (rows[j].d->bus_line && rows[j].d->domain == d->domain && rows[j].d->sec_bus == d->bus && j != i)
        rows[i].parent = (int) j;
    for (guint k = 0; td && rows[i].parent < 0 && k < td->len; k++) {
      const TDev *x = &g_array_index (td, TDev, k);
      if (x->domain != d->domain || x->bus != d->bus || x->dev != d->dev || x->fn != d->fn || x->parent < 0)
        continue;
      const TDev *p = &g_array_index (td, TDev, x->parent);
      for (guint j = 0; j < n; j++)
        if (rows[j].d->domain == p->domain && rows[j].d->bus == p->bus && rows[j].d->dev == p->dev
            && rows[j].d->fn == p->fn)
          rows[i].parent = (int) j;
    }
  }
}

/* The protocol limits of the config an import would write: `base` (a file including the host) with the link's
 * gen, lanes and MaxPayload as --sets. */
static gboolean
ceilings (const char *base, int64_t gen, int64_t lanes, int64_t mps, double *rd, double *wr, GError **error)
{
  g_autofree char *g = g_strdup_printf ("link.gen=%" G_GINT64_FORMAT, gen);
  g_autofree char *l = g_strdup_printf ("link.lanes=%" G_GINT64_FORMAT, lanes);
  g_autofree char *m = g_strdup_printf ("link.max_payload=%" G_GINT64_FORMAT, mps);
  const char *sets[] = { g, l, m, NULL };
  /* Through the loader rather than a LinkParams filled here: the SKP interval, flit mode and the host's address
   * width are the config's, so the figure is the very one `pciesim` prints for the imported config. */
  g_autoptr (PsConfig) cfg = ps_config_load (base, sets, error);
  if (!cfg)
    return FALSE;
  LinkParams lp;
  ps_build_link_params (cfg, &lp);
  /* As builder.c fills protocol_limit_mbps: MWrs with the header of their addresses, CplDs 3 DW. */
  *wr = link_protocol_limit_mbps (&lp, cfg->link.address_bits == 64 ? 16 : 12);
  *rd = link_protocol_limit_mbps (&lp, 12);
  return TRUE;
}

/* The tags a function uses and can use (spec 2.2.6.2: 32, 256 with ExtTag, 768 with 10-bit tags). */
static void
read_tags (const Dev *d, int64_t *now, int64_t *cap)
{
  /* -1 (the field or flag not shown, an older pciutils) counts as off: a capability the dump does not show is not
   * claimed. */
  int ext = lspci_flag (d, F_DEVCTL, "ExtTag"), ten = lspci_flag (d, F_DEVCTL2, "10BitTagReq");
  int cext = lspci_flag (d, F_DEVCAP, "ExtTag"), cten = lspci_flag (d, F_DEVCAP2, "10BitTagReq");
  *now = ten == 1 ? 768 : ext == 1 ? 256 : 32;
  *cap = cten == 1 ? 768 : cext == 1 ? 256 : 32;
  *cap = MAX (*cap, *now);
}

/* DevCtl's MaxPayload (the value lspci_read_values reads; here without its other checks). */
static int64_t
devctl_mps (const Dev *d)
{
  /* lspci_read_values would refuse the whole device for a missing RCB; the report wants MaxPayload alone. */
  const Field *f = &d->f[F_DEVCTL];
  const char *p = f->line ? strstr (f->text->str, "MaxPayload ") : NULL;
  return p ? g_ascii_strtoll (p + 11, NULL, 10) : 0;
}

static void
fill_row (const Text *t, Row *r)
{
  const Dev *d = r->d;
  r->kind = lspci_kind (d);
  const char *colon = strchr (d->desc, ':');
  r->name = g_strdup (colon ? colon + 1 + strspn (colon + 1, " ") : d->desc);
  /* The programming interface says nothing a reader of this report needs. */
  char *pi = strstr (r->name, " (prog-if ");
  if (pi)
    *pi = '\0';
  /* NAN ceilings print as empty cells and JSON null (format.h): a function without a link has none. */
  r->rd = r->wr = r->cap_rd = r->cap_wr = NAN;
  r->ro = -1;
  r->denied = d->denied_line != 0;
  if (r->denied || !d->express || r->kind == KIND_RCIEP || !d->f[F_LNKSTA].line)
    return;
  r->down = lspci_link_down (d);
  r->vf = lspci_link_reads_zero (d);
  r->has_link = !r->down && lspci_read_link (t, d, F_LNKSTA, &r->sta, NULL);
  if (!r->has_link)
    return;
  /* A LnkCap lspci does not show (or cannot parse) claims nothing beyond what trained. */
  if (!d->f[F_LNKCAP].line || !lspci_read_link (t, d, F_LNKCAP, &r->cap, NULL))
    r->cap = r->sta;
  Values v = { 0 };
  /* A function with a link but no DevCtl (a cut dump) has no request settings to show. */
  if (d->f[F_DEVCTL].line && lspci_read_requests (t, d, NULL, &v, NULL))
    r->mrrs = v.mrrs;
  g_free (v.tags_note);
  r->mps = devctl_mps (d);
  r->mps_cap = lspci_devcap_mps (d);
  r->ro = lspci_flag (d, F_DEVCTL, "RlxdOrd");
  read_tags (d, &r->tags, &r->tags_cap);
}

/* The other end's LnkCap bounds what the link can train to (a link trains to the lower of its two ends). */
static void
judge_link (Row *rows, guint n, Row *r)
{
  r->both_gen = r->cap.gen;
  r->both_lanes = r->cap.lanes;
  /* A port's other end is the function below it; an endpoint's or upstream port's, the port above. Without the
   * other end in the dump, the function's own LnkCap is all there is to judge by. */
  const Row *other = NULL;
  if (r->kind == KIND_ROOT_PORT || r->kind == KIND_SWITCH_DOWN) {
    int b = below_port (rows, n, r);
    other = b >= 0 ? &rows[b] : NULL;
  } else if (r->parent >= 0) {
    other = &rows[r->parent];
  }
  if (other && other->has_link) {
    r->both_gen = MIN (r->both_gen, other->cap.gen);
    r->both_lanes = MIN (r->both_lanes, other->cap.lanes);
  }
  /* Below what both ends can run: the one case a user can fix (a root port's x16 LnkCap above an x8 card is no
   * loss, the card's x8 is the most that link can be). */
  gboolean slow = r->sta.gen < r->both_gen, narrow = r->sta.lanes < r->both_lanes;
  r->downgraded = slow || narrow;
  if (r->downgraded)
    r->cause = g_strdup_printf ("trained at Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT " where both ends can run Gen%"
                                G_GINT64_FORMAT " x%" G_GINT64_FORMAT ": %s", r->sta.gen, r->sta.lanes, r->both_gen,
                                r->both_lanes, slow && narrow ? "a card not fully seated, a riser or an adapter in "
                                "the way, or a slot wired narrower than it looks"
                                : narrow ? "the slot wired with fewer lanes than it has (a x16 slot with x8), a "
                                "riser, or lanes that failed training (reseat the card)"
                                : "signal integrity (a riser, a long trace) made it fall back, the firmware caps the "
                                "port's speed (LnkCtl2 Target Link Speed), or the device idled at a lower speed to "
                                "save power when dumped");
  else if (r->sta.downgraded)
    r->cause = g_strdup ("lspci marks it (downgraded): below this end's capability, at the other end's");
  else if (other && other->has_link && (r->cap.gen > r->both_gen || r->cap.lanes > r->both_lanes))
    r->cause = g_strdup_printf ("not downgraded: the other end (%s) can run Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT
                                " only", other->d->shown, other->cap.gen, other->cap.lanes);
}

/* The largest MaxPayload every port from the function to the root supports (DevCap), and the links above. */
static gboolean
judge_ceiling (const char *base, Row *rows, guint n, Row *r, GError **error)
{
  int64_t mps_path = r->mps_cap ? r->mps_cap : r->mps;
  r->path_known = r->parent >= 0;
  for (int p = r->parent, hops = 0; p >= 0 && hops < 64; p = rows[p].parent, hops++)
    if (rows[p].mps_cap)
      mps_path = MIN (mps_path, rows[p].mps_cap);
  /* A port's link has the function below it at its other end: its payload is bounded by that function's too. */
  if (r->kind == KIND_ROOT_PORT || r->kind == KIND_SWITCH_DOWN) {
    int b = below_port (rows, n, r);
    if (b >= 0 && rows[b].mps_cap)
      mps_path = MIN (mps_path, rows[b].mps_cap);
  }
  r->mps_cap = MAX (mps_path, r->mps);
  if (!ceilings (base, r->sta.gen, r->sta.lanes, r->mps, &r->rd, &r->wr, error)
      || !ceilings (base, r->both_gen, r->both_lanes, r->mps_cap, &r->cap_rd, &r->cap_wr, error))
    return FALSE;
  /* A link between it and the root complex that carries less at this payload: a switch's upstream port's, or the
   * root port's above that. Each port's own LnkSta is its link's trained state. */
  /* Every link on the way up carries the device's DMAs; the narrowest sets the ceiling. Hop-bounded: a Bus: line
   * loop in a corrupt dump must not spin. */
  r->limited_by = g_strdup ("its own link");
  for (int p = r->parent, hops = 0; p >= 0 && hops < 64; p = rows[p].parent, hops++) {
    const Row *up = &rows[p];
    if (!up->has_link || (up->kind != KIND_SWITCH_UP && up->kind != KIND_ROOT_PORT))
      continue;
    double rd, wr;
    if (!ceilings (base, up->sta.gen, up->sta.lanes, r->mps, &rd, &wr, error))
      return FALSE;
    if (rd < r->rd || wr < r->wr) {
      r->rd = MIN (r->rd, rd);
      r->wr = MIN (r->wr, wr);
      r->cap_rd = MIN (r->cap_rd, rd);
      r->cap_wr = MIN (r->cap_wr, wr);
      g_free (r->limited_by);
      r->limited_by = g_strdup_printf ("the narrower link above it, at %s %s (Gen%" G_GINT64_FORMAT " x%"
                                       G_GINT64_FORMAT ")", lspci_kind_name (up->kind), up->d->shown, up->sta.gen,
                                       up->sta.lanes);
    }
  }
  return TRUE;
}

/* --- output --------------------------------------------------------------------------------------------------- */

/* The CSV and Markdown columns, and the order of cells(): an interface once published (docs/your-machine.md), so
 * columns are added at the end, never renamed. */
static const char *const columns[] = { "address", "kind", "link", "capable", "downgraded", "mps", "mps_capable",
                                       "mrrs", "relaxed_ordering", "tags", "tags_capable", "read_mbps",
                                       "write_mbps", "capable_read_mbps", "capable_write_mbps", "limited_by",
                                       "name", "cause", NULL };

static char *
link_text (int64_t gen, int64_t lanes)
{
  return g_strdup_printf ("Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT, gen, lanes);
}

/* A setting's cell: empty without a link, or when the dump does not show it (0). */
static char *
number (gboolean link, int64_t v)
{
  return link && v > 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, v) : g_strdup ("");
}

/* A row's cells as text, in columns[] order; empty where the function has no such value. */
static GStrv
cells (const Row *r)
{
  GPtrArray *b = g_ptr_array_new ();
  gboolean l = r->has_link;
  g_ptr_array_add (b, g_strdup (r->d->shown));
  g_ptr_array_add (b, g_strdup (lspci_kind_name (r->kind)));
  g_ptr_array_add (b, l ? link_text (r->sta.gen, r->sta.lanes) : g_strdup (r->down ? "down"
                                                                               : r->denied ? "denied"
                                                                               : r->vf     ? "VF"
                                                                                           : ""));
  g_ptr_array_add (b, l ? link_text (r->both_gen, r->both_lanes) : g_strdup (""));
  g_ptr_array_add (b, g_strdup (l ? (r->downgraded ? "yes" : "no") : ""));
  g_ptr_array_add (b, number (l, r->mps));
  g_ptr_array_add (b, number (l, r->mps_cap));
  g_ptr_array_add (b, number (l, r->mrrs));
  g_ptr_array_add (b, g_strdup (l && r->ro >= 0 ? (r->ro ? "on" : "off") : ""));
  g_ptr_array_add (b, l ? g_strdup_printf ("%" G_GINT64_FORMAT, r->tags) : g_strdup (""));
  g_ptr_array_add (b, l ? g_strdup_printf ("%" G_GINT64_FORMAT, r->tags_cap) : g_strdup (""));
  const double figs[] = { r->rd, r->wr, r->cap_rd, r->cap_wr };
  for (int i = 0; i < 4; i++) {
    g_autoptr (GString) s = g_string_new (NULL);
    ps_fmt_fixed (s, figs[i], 1);
    g_ptr_array_add (b, g_string_free (g_steal_pointer (&s), FALSE));
  }
  g_ptr_array_add (b, g_strdup (r->limited_by ? r->limited_by : ""));
  g_ptr_array_add (b, g_strdup (r->name));
  g_ptr_array_add (b, g_strdup (r->cause ? r->cause : ""));
  g_ptr_array_add (b, NULL);
  return (GStrv) g_ptr_array_free (b, FALSE);
}

/* What recovers an endpoint's loss, in words: the link, then the payload. */
static char *
remedy (const Row *r)
{
  g_autoptr (GString) s = g_string_new (NULL);
  if (r->downgraded)
    g_string_append_printf (s, "retrain at Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT " (%s)", r->both_gen,
                            r->both_lanes, r->cause);
  if (r->mps_cap > r->mps)
    g_string_append_printf (s, "%sMaxPayload %" G_GINT64_FORMAT " bytes instead of %" G_GINT64_FORMAT " (%s: the "
                            "firmware or Linux's `pci=pcie_bus_perf` sets it)", s->len ? "; " : "", r->mps_cap, r->mps,
                            r->path_known ? "every port above supports it"
                                          : "the device supports it; the port above is not in this dump, so check it "
                                            "does too");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Largest loss first; ties by address, so the order is the same on every machine and run. */
static gint
by_loss (gconstpointer a, gconstpointer b)
{
  const Row *x = *(const Row *const *) a, *y = *(const Row *const *) b;
  double lx = x->cap_rd - x->rd, ly = y->cap_rd - y->rd;
  return lx > ly ? -1 : lx < ly ? 1 : strcmp (x->d->bdf, y->d->bdf);
}

/* The endpoints that lose read ceiling to their link or payload, largest loss first. */
/* Only endpoints: a port's loss is its endpoint's, counted there. 0.05 MB/s is below the one decimal printed. */
static GPtrArray *
losses (Row *rows, guint n)
{
  GPtrArray *a = g_ptr_array_new ();
  for (guint i = 0; i < n; i++)
    if (rows[i].kind == KIND_ENDPOINT && rows[i].has_link && rows[i].cap_rd - rows[i].rd > 0.05)
      g_ptr_array_add (a, &rows[i]);
  g_ptr_array_sort (a, by_loss);
  return a;
}

/* Settings that cost no protocol ceiling but cost real DMAs: small read requests and tags left off. */
static char *
settings_note (const Row *r)
{
  g_autoptr (GString) s = g_string_new (NULL);
  if (r->mrrs && r->mrrs < 512)
    g_string_append_printf (s, "MaxReadReq %" G_GINT64_FORMAT " bytes: a read of 4 KB needs %" G_GINT64_FORMAT
                            " requests, and each waits for tags", r->mrrs, 4096 / r->mrrs);
  if (r->tags < r->tags_cap)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT " tags of the %" G_GINT64_FORMAT " it supports: fewer reads in "
                            "flight", s->len ? "; " : "", r->tags, r->tags_cap);
  return s->len ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
}

/* One device per line (PsJson's layout), so a diff of two machines' reports reads device by device. */
static void
write_json (GString *o, const char *dump_name, Row *rows, guint n, GPtrArray *loss)
{
  PsJson j;
  ps_json_init (&j, o);
  ps_json_object (&j, 2);
  ps_json_string_member (&j, "dump", dump_name);
  ps_json_string_member (&j, "host", "hosts/ideal.yaml: the ceilings are the protocol's, as `pciesim import lspci` "
                         "configs print them");
  ps_json_key (&j, "devices");
  ps_json_array (&j, 4);
  for (guint i = 0; i < n; i++) {
    const Row *r = &rows[i];
    ps_json_object (&j, 0);
    ps_json_string_member (&j, "address", r->d->shown);
    ps_json_string_member (&j, "name", r->name);
    ps_json_string_member (&j, "kind", lspci_kind_name (r->kind));
    ps_json_key (&j, "link");
    if (r->has_link) {
      ps_json_object (&j, 0);
      ps_json_int_member (&j, "gen", r->sta.gen);
      ps_json_int_member (&j, "lanes", r->sta.lanes);
      ps_json_int_member (&j, "capable_gen", r->both_gen);
      ps_json_int_member (&j, "capable_lanes", r->both_lanes);
      ps_json_bool_member (&j, "downgraded", r->downgraded);
      ps_json_key (&j, "cause");
      if (r->cause)
        ps_json_string (&j, r->cause);
      else
        ps_json_raw (&j, "null");
      ps_json_end (&j);
    } else {
      ps_json_raw (&j, r->down ? "\"down\"" : "null");
    }
    const char *keys[] = { "max_payload", "max_payload_capable", "max_read_request", "tags", "tags_capable" };
    const int64_t vals[] = { r->mps, r->mps_cap, r->mrrs, r->tags, r->tags_cap };
    for (int k = 0; k < 5; k++) {
      ps_json_key (&j, keys[k]);
      if (r->has_link && vals[k] > 0)
        ps_json_int (&j, vals[k]);
      else
        ps_json_raw (&j, "null");
    }
    ps_json_key (&j, "relaxed_ordering");
    if (r->has_link && r->ro >= 0)
      ps_json_bool (&j, r->ro);
    else
      ps_json_raw (&j, "null");
    const char *ck[] = { "ceiling_mbps", "capable_ceiling_mbps" };
    for (int k = 0; k < 2; k++) {
      ps_json_key (&j, ck[k]);
      ps_json_object (&j, 0);
      ps_json_fixed_member (&j, "read", k ? r->cap_rd : r->rd, 1);
      ps_json_fixed_member (&j, "write", k ? r->cap_wr : r->wr, 1);
      ps_json_end (&j);
    }
    ps_json_key (&j, "limited_by");
    if (r->limited_by)
      ps_json_string (&j, r->limited_by);
    else
      ps_json_raw (&j, "null");
    ps_json_end (&j);
  }
  ps_json_end (&j);
  ps_json_key (&j, "losses");
  ps_json_array (&j, 4);
  for (guint i = 0; i < loss->len; i++) {
    const Row *r = g_ptr_array_index (loss, i);
    g_autofree char *fix = remedy (r);
    ps_json_object (&j, 0);
    ps_json_string_member (&j, "address", r->d->shown);
    ps_json_fixed_member (&j, "read_mbps_lost", r->cap_rd - r->rd, 1);
    ps_json_fixed_member (&j, "write_mbps_lost", r->cap_wr - r->wr, 1);
    ps_json_string_member (&j, "change", fix);
    ps_json_end (&j);
  }
  ps_json_end (&j);
  ps_json_end (&j);
  g_string_append_c (o, '\n');
}

static void
write_rows (GString *o, PsFormat f, Row *rows, guint n)
{
  guint nc = g_strv_length ((GStrv) columns);
  if (f == PS_FORMAT_CSV || f == PS_FORMAT_MARKDOWN) {
    for (guint c = 0; c < nc; c++) {
      g_string_append (o, f == PS_FORMAT_MARKDOWN ? "| " : c ? "," : "");
      g_string_append (o, columns[c]);
      g_string_append (o, f == PS_FORMAT_MARKDOWN ? " " : "");
    }
    g_string_append (o, f == PS_FORMAT_MARKDOWN ? "|\n" : "\n");
    if (f == PS_FORMAT_MARKDOWN) {
      for (guint c = 0; c < nc; c++)
        g_string_append (o, "|---");
      g_string_append (o, "|\n");
    }
    for (guint i = 0; i < n; i++) {
      g_auto (GStrv) v = cells (&rows[i]);
      for (guint c = 0; c < nc; c++) {
        if (f == PS_FORMAT_CSV) {
          if (c)
            g_string_append_c (o, ',');
          ps_csv_cell (o, v[c]);
        } else {
          g_string_append (o, "| ");
          ps_md_cell (o, v[c]);
          g_string_append_c (o, ' ');
        }
      }
      g_string_append (o, f == PS_FORMAT_MARKDOWN ? "|\n" : "\n");
    }
    return;
  }
  /* The table: the figures a reader scans first, the name last; the causes below the rows. */
  g_string_append_printf (o, "%-13s %-22s %-9s %-9s %-4s %-9s %-5s %-3s %-8s %9s %9s %9s %9s  %s\n", "address", "kind",
                          "link", "capable", "down", "mps", "mrrs", "ro", "tags", "read", "write", "cap.read",
                          "cap.write", "name");
  for (guint i = 0; i < n; i++) {
    const Row *r = &rows[i];
    g_auto (GStrv) v = cells (r);
    g_autofree char *mps = r->has_link ? g_strdup_printf ("%s/%s", v[5], v[6]) : g_strdup ("");
    g_autofree char *tags = r->has_link ? g_strdup_printf ("%s/%s", v[9], v[10]) : g_strdup ("");
    g_autofree char *name = g_utf8_make_valid (r->name, -1);
    g_string_append_printf (o, "%-13s %-22s %-9s %-9s %-4s %-9s %-5s %-3s %-8s %9s %9s %9s %9s  %.50s%s\n", v[0], v[1],
                            v[2], v[3], v[4], mps, v[7], v[8], tags, v[11], v[12], v[13], v[14], name,
                            strlen (name) > 50 ? "…" : "");
  }
  g_string_append (o, "link: as trained (LnkSta), down (width x0), denied (lspci ran without root), VF (an SR-IOV "
                      "VF: its PF's link); capable: what both ends can run (LnkCap of each); mps and tags: "
                      "set/supported; read, write: the protocol's ceiling in MB/s at the trained link and settings, "
                      "cap.: at the capable ones (hosts/ideal.yaml, as `pciesim import lspci` configs)\n");
  for (guint i = 0; i < n; i++) {
    const Row *r = &rows[i];
    if (r->downgraded)
      g_string_append_printf (o, "%s DOWNGRADED: %s\n", r->d->shown, r->cause);
    if (r->limited_by && strcmp (r->limited_by, "its own link") != 0)
      g_string_append_printf (o, "%s ceiling: %s\n", r->d->shown, r->limited_by);
  }
}

/* The table's closing part: what to change, which the CSV and Markdown leave to the reader of the columns. */
static void
write_losses (GString *o, Row *rows, guint n, GPtrArray *loss)
{
  g_string_append (o, "\nLosing most to settings or links (read ceiling lost, largest first):\n");
  if (!loss->len)
    g_string_append (o, "  none: every endpoint's link and MaxPayload are what both ends allow\n");
  for (guint i = 0; i < loss->len; i++) {
    const Row *r = g_ptr_array_index (loss, i);
    g_autofree char *fix = remedy (r);
    g_string_append_printf (o, "  %s  %.1f -> %.1f MB/s read, %.1f -> %.1f MB/s write: %s\n", r->d->shown, r->rd,
                            r->cap_rd, r->wr, r->cap_wr, fix);
  }
  gboolean head = FALSE;
  for (guint i = 0; i < n; i++) {
    if (rows[i].kind != KIND_ENDPOINT || !rows[i].has_link)
      continue;
    g_autofree char *note = settings_note (&rows[i]);
    if (!note)
      continue;
    if (!head)
      g_string_append (o, "Settings that cost DMAs, not the ceiling:\n");
    head = TRUE;
    g_string_append_printf (o, "  %s  %s\n", rows[i].d->shown, note);
  }
}

char *
ps_machine_report (const char *dump_name, const char *dump, gsize dump_len, const char *tree_name, const char *tree,
                   gsize tree_len, const char *host_path, PsFormat format, GError **error)
{
  Text t = { 0 }, tt = { 0 };
  g_autoptr (GArray) devs = g_array_new (FALSE, TRUE, sizeof (Dev));
  g_array_set_clear_func (devs, (GDestroyNotify) lspci_dev_clear);
  g_autoptr (GArray) td = g_array_new (FALSE, FALSE, sizeof (TDev));
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_array_set_clear_func (rows, (GDestroyNotify) row_clear);
  char *result = NULL, *base = NULL;
  GPtrArray *loss = NULL;
  g_autoptr (GString) q = g_string_new ("name: machine\ninclude: [\"");
  g_autoptr (GString) o = g_string_new (NULL);
  if (!lspci_split_lines (&t, dump_name, dump, dump_len, error)
      || (tree && !lspci_split_lines (&tt, tree_name, tree, tree_len, error)) || !lspci_read_devices (&t, devs, error)
      || (tree && !lspci_parse_tree (&tt, td, error)))
    goto out;
  /* The ceilings' config: what `import lspci` writes with no --host, its link keys given per row as --sets. */
  GError *e = NULL;
  int fd = g_file_open_tmp ("pciesim-machine-XXXXXX.yaml", &base, &e);
  if (fd < 0) {
    ps_error_plain (error, PS_ERROR_CANTCREAT, "%s", e->message);
    g_error_free (e);
    goto out;
  }
  close (fd);
  for (const char *c = host_path; *c; c++)
    g_string_append_printf (q, (*c == '"' || *c == '\\') ? "\\%c" : "%c", *c);
  g_string_append (q, "\"]\n");
  if (!g_file_set_contents (base, q->str, -1, &e)) {
    ps_error_plain (error, PS_ERROR_CANTCREAT, "%s", e->message);
    g_error_free (e);
    goto out;
  }
  /* Three passes: every row's own registers first, since judging a link needs the other end's LnkCap and a ceiling
   * the DevCap of every port above. */
  g_array_set_size (rows, devs->len);
  for (guint i = 0; i < devs->len; i++) {
    Row *r = &g_array_index (rows, Row, i);
    r->d = &g_array_index (devs, Dev, i);
    fill_row (&t, r);
  }
  Row *rs = &g_array_index (rows, Row, 0);
  find_parents (rs, rows->len, tree ? td : NULL);
  for (guint i = 0; i < rows->len; i++)
    if (rs[i].has_link)
      judge_link (rs, rows->len, &rs[i]);
  /* Ceilings after every row's DevCap is read: the payload the path allows needs the ports above. */
  for (guint i = 0; i < rows->len; i++)
    if (rs[i].has_link && rs[i].mps && !judge_ceiling (base, rs, rows->len, &rs[i], error))
      goto out;
  loss = losses (rs, rows->len);
  if (format == PS_FORMAT_JSON) {
    write_json (o, dump_name, rs, rows->len, loss);
  } else {
    write_rows (o, format, rs, rows->len);
    if (format == PS_FORMAT_TABLE)
      write_losses (o, rs, rows->len, loss);
  }
  result = g_string_free (g_steal_pointer (&o), FALSE);
out:
  if (base) {
    g_unlink (base);
    g_free (base);
  }
  if (loss)
    g_ptr_array_unref (loss);
  lspci_text_clear (&t);
  lspci_text_clear (&tt);
  return result;
}

/* The file part: the dump and tree read whole (lspci's text is small; PS_LSPCI_MAX_BYTES bounds it in the reader),
 * the ideal host from the configs the program finds, as `import lspci` does without --host. */
gboolean
ps_machine_run (const PsMachine *m, GError **error)
{
  g_autofree char *configs_dir = ps_default_configs_dir ();
  g_autofree char *host = g_build_filename (configs_dir, "hosts", "ideal.yaml", NULL);
  g_autofree char *host_abs = g_canonicalize_filename (host, NULL);
  char *dump = NULL, *tree = NULL;
  gsize dump_len = 0, tree_len = 0;
  g_autoptr (GError) e = NULL;
  if (!g_file_get_contents (m->dump_path, &dump, &dump_len, &e)
      || (m->tree_path && !g_file_get_contents (m->tree_path, &tree, &tree_len, &e))) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s", e->message);
    g_free (dump);
    return FALSE;
  }
  g_autofree char *text = ps_machine_report (m->dump_path, dump, dump_len, m->tree_path, tree, tree_len, host_abs,
                                             m->format, error);
  g_free (dump);
  g_free (tree);
  if (!text)
    return FALSE;
  GString view = { text, strlen (text), strlen (text) + 1 };
  return ps_write_output (m->output, &view, error);
}
