/* lspci_dump.c — reading an `lspci -vvv` dump and an `lspci -tv` tree into devices, fields and values, each
 * with its line and column; see lspci_dump.h. The formats are those pciutils prints (lib and ls-caps.c, ls-tree.c). */
#include "app/import/lspci_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/base/error.h"
#include "app/import/lspci.h"

/* --- lines ----------------------------------------------------------------------------------------------------- */



void
lspci_text_clear (Text *t)
{
  g_free (t->copy);
  if (t->lines)
    g_array_unref (t->lines);
}

/* "DevCtl:", "Region 0:", "Kernel driver in use:": a letter, then letters, digits, blanks and a few marks, then ':'
 * and a blank or the end. Continuation lines ("MaxPayload 256 bytes, …", "10BitTagComp- …") do not match. */
static gboolean
looks_like_label (const char *s)
{
  if (!g_ascii_isalpha (s[0]))
    return FALSE;
  for (int i = 1; i < 48 && s[i]; i++) {
    if (s[i] == ':')
      return s[i - 1] != ' ' && (s[i + 1] == '\0' || s[i + 1] == ' ' || s[i + 1] == '\t');
    if (!g_ascii_isalnum (s[i]) && !strchr (" /_.#-", s[i]))
      return FALSE;
  }
  return FALSE;
}

gboolean
lspci_split_lines (Text *t, const char *name, const char *data, gsize len, GError **error)
{
  t->name = name;
  if (len > PS_LSPCI_MAX_BYTES) {
    ps_error_located (error, PS_ERROR_DATA, name, 1, 1, "%" G_GSIZE_FORMAT " bytes: more than an lspci dump (%d MB "
                      "at most)", len, PS_LSPCI_MAX_BYTES / (1024 * 1024));
    return FALSE;
  }
  t->copy = g_malloc (len + 1);
  memcpy (t->copy, data, len);
  t->copy[len] = '\0';
  t->lines = g_array_new (FALSE, TRUE, sizeof (Line));
  char *p = t->copy, *end = t->copy + len;
  while (p < end || (p == end && t->lines->len == 0)) {
    char *nl = memchr (p, '\n', (size_t) (end - p));
    char *stop = nl ? nl : end;
    char *nul = memchr (p, '\0', (size_t) (stop - p));
    if (nul) {
      ps_error_located (error, PS_ERROR_DATA, name, (int) t->lines->len + 1, (int) (nul - p) + 1,
                        "a NUL byte: this is not the text lspci prints");
      return FALSE;
    }
    *stop = '\0';
    char *e = stop;
    while (e > p && g_ascii_isspace (e[-1]))
      *--e = '\0';
    Line l = { 0 };
    char *s = p;
    for (; *s == ' ' || *s == '\t'; s++)
      l.indent = *s == '\t' ? (l.indent / 8 + 1) * 8 : l.indent + 1;
    l.text = s;
    l.col = (int) (s - p) + 1;
    l.label = looks_like_label (s);
    g_array_append_val (t->lines, l);
    p = stop + 1;
  }
  return TRUE;
}


/* --- fields of a device ----------------------------------------------------------------------------------------- */



static const char *const field_labels[F_REGION0] = { "DevCap", "DevCtl", "LnkCap", "LnkCtl", "LnkSta", "DevCap2",
                                                     "DevCtl2" };


void
lspci_dev_clear (Dev *d)
{
  g_free (d->shown);
  for (int i = 0; i < F_N; i++) {
    if (d->f[i].text)
      g_string_free (d->f[i].text, TRUE);
    if (d->f[i].segs)
      g_array_unref (d->f[i].segs);
  }
}

static int
hexval (char c)
{
  return g_ascii_isxdigit (c) ? g_ascii_xdigit_value (c) : -1;
}

/* "[DDDD:]BB:DD.F" at s, followed by a blank or the end (or anything when `tail` is FALSE). Device numbers above
 * 1f and functions above 7 do not exist. */
gboolean
lspci_parse_bdf (const char *s, gboolean tail, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn, int *len)
{
  int n = 0;
  unsigned d = 0;
  if (hexval (s[0]) >= 0 && hexval (s[1]) >= 0 && hexval (s[2]) >= 0 && hexval (s[3]) >= 0 && s[4] == ':') {
    d = (unsigned) (hexval (s[0]) << 12 | hexval (s[1]) << 8 | hexval (s[2]) << 4 | hexval (s[3]));
    n = 5;
  }
  const char *b = s + n;
  if (hexval (b[0]) < 0 || hexval (b[1]) < 0 || b[2] != ':' || hexval (b[3]) < 0 || hexval (b[4]) < 0 || b[5] != '.'
      || b[6] < '0' || b[6] > '7')
    return FALSE;
  unsigned dv = (unsigned) (hexval (b[3]) << 4 | hexval (b[4]));
  if (dv > 0x1f || (tail && b[7] != '\0' && b[7] != ' ' && b[7] != '\t'))
    return FALSE;
  *dom = d;
  *bus = (unsigned) (hexval (b[0]) << 4 | hexval (b[1]));
  *dev = dv;
  *fn = (unsigned) (b[6] - '0');
  *len = n + 7;
  return TRUE;
}

void
lspci_format_bdf (char out[16], unsigned dom, unsigned bus, unsigned dev, unsigned fn)
{
  g_snprintf (out, 16, "%04x:%02x:%02x.%u", dom & 0xffff, bus & 0xff, dev & 0x1f, fn & 7);
}

/* Which of the fields read the label of line `l` names, or -1. */
static int
field_of (const Line *l)
{
  if (!l->label)
    return -1;
  for (int i = 0; i < F_REGION0; i++) {
    size_t n = strlen (field_labels[i]);
    if (strncmp (l->text, field_labels[i], n) == 0 && l->text[n] == ':')
      return i;
  }
  if (strncmp (l->text, "Region ", 7) == 0 && l->text[7] >= '0' && l->text[7] <= '5' && l->text[8] == ':')
    return F_REGION0 + (l->text[7] - '0');
  return -1;
}

gboolean
lspci_is_header (const Line *l)
{
  unsigned a, b, c, d;
  int n;
  return lspci_parse_bdf (l->text, TRUE, &a, &b, &c, &d, &n);
}

/* One device: from its header to the next header. A field takes the lines after its label that are indented deeper
 * or carry no label, and stops at any line that is one of the fields read: each line joins at most one field, so
 * the work stays linear whatever the indentation. */
gboolean
lspci_read_device (const Text *t, guint first, guint end, Dev *d, GError **error)
{
  const Line *h = line_at (t, first);
  int n;
  lspci_parse_bdf (h->text, TRUE, &d->domain, &d->bus, &d->dev, &d->fn, &n);
  lspci_format_bdf (d->bdf, d->domain, d->bus, d->dev, d->fn);
  d->shown = g_strndup (h->text, (gsize) n);
  d->desc = h->text + n + strspn (h->text + n, " \t");
  d->line = (int) first + 1;
  /* lspci prints the device's Region lines before its capabilities (show_bases, then show_caps): a Region line
   * after the first "Capabilities:" is a capability's, such as SR-IOV's VF BARs, and is no BAR of the device. */
  gboolean in_caps = FALSE, in_sriov = FALSE;
  for (guint i = first + 1; i < end; i++) {
    const Line *l = line_at (t, i);
    if (l->label && g_str_has_prefix (l->text, "Capabilities:")) {
      in_caps = TRUE;
      in_sriov = strstr (l->text, "] Single Root I/O Virtualization (SR-IOV)") != NULL;
      const char *rest = l->text + 13 + strspn (l->text + 13, " \t");
      if (g_str_has_prefix (rest, "<access denied>") && !d->denied_line) {
        d->denied_line = (int) i + 1;
        d->denied_col = l->col;
      }
      /* "Capabilities: [a0] Express (v2) Endpoint, MSI 00" */
      const char *x = strstr (rest, "] Express");
      if (x && !d->express_line) {
        d->express_line = (int) i + 1;
        d->express = x + 2;
      }
      if (strstr (rest, "] Alternative Routing-ID Interpretation (ARI)") && !d->ari_line)
        d->ari_line = (int) i + 1;
      continue;
    }
    /* ls-ecaps.c's cap_sriov prints "Initial VFs: %d, Total VFs: %d, Number of VFs: %d, …" and "VF offset: %d,
     * stride: %d, …" */
    unsigned ia, ib, ic;
    if (in_sriov && !d->iov_vfs_line
        && sscanf (l->text, "Initial VFs: %u, Total VFs: %u, Number of VFs: %u", &ia, &ib, &ic) == 3) {
      d->iov_vfs_line = (int) i + 1;
      d->iov_num_vfs = ic;
    }
    if (in_sriov && !d->iov_offset_line && sscanf (l->text, "VF offset: %u, stride: %u", &ia, &ib) == 2) {
      d->iov_offset_line = (int) i + 1;
      d->iov_offset = ia;
      d->iov_stride = ib;
    }
    unsigned pri, sec, sub;
    if (!in_caps && !d->bus_line && l->label
        && sscanf (l->text, "Bus: primary=%x, secondary=%x, subordinate=%x", &pri, &sec, &sub) == 3) {
      d->bus_line = (int) i + 1;
      d->sec_bus = sec;
      d->sub_bus = sub;
    }
    int f = field_of (l);
    if (f < 0 || (f >= F_REGION0 && in_caps))
      continue;
    Field *fd = &d->f[f];
    if (fd->line) {
      ps_error_located (error, PS_ERROR_DATA, t->name, (int) i + 1, l->col, "a second %.*s for %s (the first is at "
                        "line %d): two dumps run together?", (int) (strchr (l->text, ':') - l->text), l->text,
                        d->shown, fd->line);
      return FALSE;
    }
    fd->line = (int) i + 1;
    fd->col = l->col;
    fd->text = g_string_new (NULL);
    fd->segs = g_array_new (FALSE, FALSE, sizeof (Seg));
    for (guint j = i; j < end; j++) {
      const Line *c = line_at (t, j);
      if (j > i && (c->text[0] == '\0' || field_of (c) >= 0 || (c->label && c->indent <= l->indent)))
        break;
      if (j > i)
        g_string_append_c (fd->text, ' ');
      Seg s = { (guint) fd->text->len, (int) j + 1, c->col, c->text };
      g_array_append_val (fd->segs, s);
      g_string_append (fd->text, c->text);
      i = j;
    }
  }
  return TRUE;
}

Kind
lspci_kind (const Dev *d)
{
  if (!d->express) {
    /* No Express capability: a conventional function, or a bridge by its class ("PCI bridge", "CardBus bridge"). */
    return strstr (d->desc, "PCI bridge") ? KIND_BRIDGE : KIND_OTHER;
  }
  /* "Express (v2) Root Port (Slot+), MSI 00": the type follows the version, when there is one. */
  const char *t = d->express + strlen ("Express");
  t += strspn (t, " ");
  if (*t == '(')
    t = strchr (t, ')') ? strchr (t, ')') + 1 : t;
  t += strspn (t, " ");
  static const struct {
    const char *word;
    Kind kind;
  } types[] = { { "Root Complex Integrated Endpoint", KIND_RCIEP }, { "Root Complex Event Collector", KIND_OTHER },
                { "Legacy Endpoint", KIND_ENDPOINT }, { "Endpoint", KIND_ENDPOINT },
                { "Root Port", KIND_ROOT_PORT }, { "Upstream Port", KIND_SWITCH_UP },
                { "Downstream Port", KIND_SWITCH_DOWN }, { "PCI-Express to PCI", KIND_BRIDGE },
                { "PCI/PCI-X to PCI-Express", KIND_BRIDGE } };
  for (size_t i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_prefix (t, types[i].word))
      return types[i].kind;
  return KIND_OTHER;
}

const char *
lspci_kind_name (Kind k)
{
  static const char *const names[] = { "endpoint", "root complex integrated endpoint", "root port",
                                       "switch upstream port", "switch downstream port", "bridge", "other" };
  return names[k];
}

gboolean
lspci_read_devices (const Text *t, GArray *devs, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < t->lines->len; i++) {
    if (!lspci_is_header (line_at (t, i)))
      continue;
    guint end = i + 1;
    while (end < t->lines->len && !lspci_is_header (line_at (t, end)))
      end++;
    /* 65536 functions fill a PCI domain's buses: more is no machine's dump. */
    if (devs->len == 65536) {
      ps_error_located (error, PS_ERROR_DATA, t->name, (int) i + 1, 1, "more than 65536 devices: not one machine's "
                        "lspci");
      return FALSE;
    }
    g_array_set_size (devs, devs->len + 1);
    Dev *d = &g_array_index (devs, Dev, devs->len - 1);
    if (!lspci_read_device (t, i, end, d, error))
      return FALSE;
    gpointer first = g_hash_table_lookup (seen, d->bdf);
    if (first) {
      ps_error_located (error, PS_ERROR_DATA, t->name, d->line, 1, "%s is listed twice (first at line %d): two "
                        "dumps run together?", d->shown, GPOINTER_TO_INT (first));
      return FALSE;
    }
    g_hash_table_insert (seen, g_strdup (d->bdf), GINT_TO_POINTER (d->line));
    i = end - 1;
  }
  if (devs->len == 0) {
    ps_error_located (error, PS_ERROR_DATA, t->name, 1, 1, "no device: `lspci -vvv` starts each with a line such as "
                      "'01:00.0 Ethernet controller: …'");
    return FALSE;
  }
  return TRUE;
}

/* The line and column of offset `at` of a field's joined text. */
static const Seg *
seg_at (const Field *f, gsize at, int *col)
{
  const Seg *s = &g_array_index (f->segs, Seg, 0);
  for (guint i = 1; i < f->segs->len; i++)
    if (g_array_index (f->segs, Seg, i).from <= at)
      s = &g_array_index (f->segs, Seg, i);
  *col = s->col + (int) (at - s->from);
  return s;
}

/* --- values in a field ----------------------------------------------------------------------------------------- */


/* `word` as a whole word of the field (after its start, a blank, ',' , ';' or '('), the offset just after it or -1. */
static gssize
find_word (const Field *f, const char *word, const char *followed_by)
{
  const char *text = f->text->str;
  size_t n = strlen (word);
  for (const char *p = strstr (text, word); p; p = strstr (p + 1, word))
    if ((p == text || strchr (" \t,;(", p[-1])) && (!followed_by || (p[n] && strchr (followed_by, p[n]))))
      return (gssize) (p - text + (gssize) n);
  return -1;
}

static Src
src_of (const Field *f, gsize at)
{
  Src s;
  const Seg *g = seg_at (f, at, &s.col);
  s.line = g->line;
  s.raw = g->raw;
  return s;
}

/* The label of a field for messages: "DevCtl", "Region 2". */
static const char *
label_of (int f)
{
  static const char *const regions[] = { "Region 0", "Region 1", "Region 2", "Region 3", "Region 4", "Region 5" };
  return f < F_REGION0 ? field_labels[f] : regions[f - F_REGION0];
}

/* "+" or "-" after `flag` ("ExtTag+"): 1, 0, or -1 when the field does not show it. */
static int
read_flag (const Field *f, const char *flag, Src *src)
{
  gssize at = find_word (f, flag, "+-");
  if (at < 0)
    return -1;
  if (src)
    *src = src_of (f, (gsize) at - strlen (flag));
  return f->text->str[at] == '+';
}

/* "WORD N bytes" (MaxPayload, MaxReadReq, RCB): N, a power of two within [lo, hi]. */
static gboolean
read_bytes (const Text *t, const Dev *d, int fi, const char *word, int64_t lo, int64_t hi, int64_t *out, Src *src,
            GError **error)
{
  const Field *f = &d->f[fi];
  gssize at = find_word (f, word, " ");
  if (at < 0) {
    ps_error_located (error, PS_ERROR_DATA, t->name, f->line, f->col, "%s of %s shows no '%s N bytes' (every lspci "
                      "prints it)", label_of (fi), d->shown, word);
    return FALSE;
  }
  const char *s = f->text->str + at + 1;
  char *end;
  errno = 0;
  long long v = g_ascii_isdigit (*s) ? strtoll (s, &end, 10) : -1;
  *src = src_of (f, (gsize) at + 1);
  if (v < lo || v > hi || (v & (v - 1)) || errno || !g_str_has_prefix (end, " bytes")) {
    ps_error_located (error, PS_ERROR_DATA, t->name, src->line, src->col, "%s of %s: '%s %.12s' is not a size "
                      "lspci prints (%" G_GINT64_FORMAT " to %" G_GINT64_FORMAT " bytes, a power of two)",
                      label_of (fi), d->shown, word, s, lo, hi);
    return FALSE;
  }
  *out = v;
  return TRUE;
}


/* Speed words lspci has printed for each generation (pciutils 3.x: "2.5GT/s", "5GT/s", …, 3.11: "64GT/s"). */
static int64_t
gen_of (const char *w, size_t n)
{
  static const struct {
    const char *word;
    int64_t gen;
  } speeds[] = { { "2.5GT/s", 1 }, { "5GT/s", 2 }, { "5.0GT/s", 2 }, { "8GT/s", 3 }, { "8.0GT/s", 3 },
                 { "16GT/s", 4 }, { "16.0GT/s", 4 }, { "32GT/s", 5 }, { "32.0GT/s", 5 }, { "64GT/s", 6 },
                 { "64.0GT/s", 6 } };
  for (size_t i = 0; i < G_N_ELEMENTS (speeds); i++)
    if (strlen (speeds[i].word) == n && strncmp (w, speeds[i].word, n) == 0)
      return speeds[i].gen;
  return 0;
}

/* "Speed 16GT/s (downgraded), Width x8 (ok)" of LnkSta or LnkCap. */
gboolean
lspci_read_link (const Text *t, const Dev *d, int fi, LinkVals *v, GError **error)
{
  const Field *f = &d->f[fi];
  gssize sp = find_word (f, "Speed", " "), wd = find_word (f, "Width", " ");
  if (sp < 0 || wd < 0) {
    ps_error_located (error, PS_ERROR_DATA, t->name, f->line, f->col, "%s of %s shows no '%s' (lspci prints "
                      "'Speed 8GT/s, Width x8')", label_of (fi), d->shown, sp < 0 ? "Speed S" : "Width xN");
    return FALSE;
  }
  const char *w = f->text->str + sp + 1;
  size_t n = strcspn (w, " ,;");
  v->speed = src_of (f, (gsize) sp + 1);
  v->gen = gen_of (w, n);
  if (!v->gen) {
    ps_error_located (error, PS_ERROR_DATA, t->name, v->speed.line, v->speed.col, "%s of %s: speed '%.*s' is none "
                      "of 2.5GT/s, 5GT/s, 8GT/s, 16GT/s, 32GT/s, 64GT/s (Gen1-Gen6)%s", label_of (fi), d->shown,
                      (int) MIN (n, 24), w, strncmp (w, "unknown", n) == 0 && n == 7
                      ? ": this pciutils is too old to name the speed, or the link is down" : "");
    return FALSE;
  }
  const char *x = f->text->str + wd + 1;
  char *end;
  long long lanes = x[0] == 'x' && g_ascii_isdigit (x[1]) ? strtoll (x + 1, &end, 10) : -1;
  v->width = src_of (f, (gsize) wd + 1);
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 12 && lanes != 16 && lanes != 32) {
    ps_error_located (error, PS_ERROR_DATA, t->name, v->width.line, v->width.col, "%s of %s: width '%.*s' is none "
                      "of x1, x2, x4, x8, x12, x16, x32%s", label_of (fi), d->shown, (int) MIN (strcspn (x, " ,;"), 24),
                      x, lanes == 0 ? " (x0: the link is down)" : "");
    return FALSE;
  }
  v->lanes = lanes;
  v->downgraded = strstr (f->text->str, "(downgraded)") != NULL;
  return TRUE;
}

/* --- the tree (lspci -tv) ---------------------------------------------------------------------------------------- */


typedef struct {
  unsigned domain, bus;
  int parent; /* the bridge whose secondary bus it is, -1 for a root bus */
} TBus;

/* ls-tree.c draws a bus's devices in one column after "+-", "\-" or "--": a bus header "[DDDD:BB]-" puts them 2
 * columns after its "-", a bridge "-[SS]-" or "-[SS-UU]-" 3 after (it adds a '-' of its own). Devices are read at
 * the column of the last bus that opened there: the drawing is depth-first. */
gboolean
lspci_parse_tree (const Text *t, GArray *devs, GError **error)
{
  g_autoptr (GHashTable) buses = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  for (guint i = 0; i < t->lines->len; i++) {
    const Line *l = line_at (t, i);
    const char *s = l->text;
    int base = l->col - 1; /* byte columns: the drawing is ASCII */
    for (int k = 0; s[k];) {
      char c = s[k];
      if (c == ' ' || c == '|' || c == '+' || c == '-' || c == '\\' || c == '`') {
        k++;
        continue;
      }
      if (c == '[') {
        unsigned dom = 0, bus = 0;
        int n = 0;
        if (sscanf (s + k, "[%4x:%2x]%n", &dom, &bus, &n) != 2 || n != 9 || s[k + n] != '-') {
          ps_error_located (error, PS_ERROR_DATA, t->name, (int) i + 1, l->col + k, "not an `lspci -tv` tree: a "
                            "bus reads [DDDD:BB]");
          return FALSE;
        }
        TBus *b = g_new (TBus, 1);
        *b = (TBus) { dom, bus, -1 };
        g_hash_table_replace (buses, GINT_TO_POINTER (base + k + n + 3), b);
        k += n;
        continue;
      }
      unsigned dv = 0, fn = 0;
      if (hexval (s[k]) < 0 || hexval (s[k + 1]) < 0 || s[k + 2] != '.' || s[k + 3] < '0' || s[k + 3] > '7'
          || (dv = (unsigned) (hexval (s[k]) << 4 | hexval (s[k + 1]))) > 0x1f) {
        ps_error_located (error, PS_ERROR_DATA, t->name, (int) i + 1, l->col + k, "not an `lspci -tv` tree: '%c' is "
                          "no bus [DDDD:BB], device DD.F or line of the drawing", g_ascii_isprint (c) ? c : '?');
        return FALSE;
      }
      fn = (unsigned) (s[k + 3] - '0');
      const TBus *b = g_hash_table_lookup (buses, GINT_TO_POINTER (base + k));
      if (!b) {
        ps_error_located (error, PS_ERROR_DATA, t->name, (int) i + 1, l->col + k, "device %.4s has no bus above it "
                          "in this column: not a tree `lspci -tv` drew", s + k);
        return FALSE;
      }
      TDev d = { b->domain, b->bus, dv, fn, b->parent, (int) i + 1, l->col + k };
      g_array_append_val (devs, d);
      k += 4;
      unsigned sec = 0, sub = 0;
      int n = 0;
      /* A bridge: "-[SS]-" or "-[SS-UU]-"; its devices follow. Anything else after two blanks is the name. */
      if (s[k] == '-' && s[k + 1] == '[') {
        if (!((sscanf (s + k, "-[%2x-%2x]-%n", &sec, &sub, &n) == 2 && n == 9)
              || (sscanf (s + k, "-[%2x]-%n", &sec, &n) == 1 && n == 6))) {
          ps_error_located (error, PS_ERROR_DATA, t->name, (int) i + 1, l->col + k, "not an `lspci -tv` tree: a "
                            "bridge's buses read -[SS]- or -[SS-UU]-");
          return FALSE;
        }
        TBus *nb = g_new (TBus, 1);
        *nb = (TBus) { b->domain, sec, (int) devs->len - 1 };
        g_hash_table_replace (buses, GINT_TO_POINTER (base + k + n + 3), nb);
        k += n;
        continue;
      }
      break; /* the name, or the end of the line */
    }
  }
  return TRUE;
}



/* The checks that the fields read are there: capabilities readable, an Express capability with its DevCtl, LnkCtl
 * and LnkSta. */
static gboolean
check_fields (const Text *t, const Dev *d, GError **error)
{
  if (d->denied_line) {
    ps_error_located (error, PS_ERROR_DATA, t->name, d->denied_line, d->denied_col, "lspci could not read the "
                      "capabilities of %s (it ran without root): link.gen and link.lanes (LnkSta), "
                      "link.max_payload and link.max_read_request (DevCtl), link.read_completion_boundary (LnkCtl) "
                      "and endpoint.tags (DevCtl, DevCtl2) are missing; run `sudo lspci -vvv -s %s` and import "
                      "that", d->shown, d->shown);
    return FALSE;
  }
  if (!d->express_line) {
    ps_error_located (error, PS_ERROR_DATA, t->name, d->line, 1, "%s shows no PCI Express capability: a "
                      "conventional PCI device, or the dump is not of `lspci -vvv`", d->shown);
    return FALSE;
  }
  static const int needed[] = { F_DEVCTL, F_LNKCTL, F_LNKSTA };
  for (size_t i = 0; i < G_N_ELEMENTS (needed); i++)
    if (!d->f[needed[i]].line) {
      gboolean rciep = strstr (d->express, "Integrated") != NULL;
      ps_error_located (error, PS_ERROR_DATA, t->name, d->express_line, 1, "%s's Express capability has no %s:%s",
                        d->shown, field_labels[needed[i]], rciep ? " a Root Complex Integrated Endpoint has no link "
                        "to simulate" : " the dump is cut short");
      return FALSE;
    }
  return TRUE;
}

/* Whether field `fi` reads "Speed unknown, Width x0": both fields zero. */
static gboolean
link_field_zero (const Dev *d, int fi)
{
  const Field *f = &d->f[fi];
  if (!f->line)
    return FALSE;
  gssize sp = find_word (f, "Speed", " "), wd = find_word (f, "Width", " ");
  return sp >= 0 && wd >= 0 && g_str_has_prefix (f->text->str + sp + 1, "unknown")
      && strchr (" ,;", f->text->str[sp + 8]) && g_str_has_prefix (f->text->str + wd + 1, "x0")
      && strchr (" ,;", f->text->str[wd + 3]);
}

/* An endpoint whose LnkSta and LnkCap both read zeros: an SR-IOV VF, whose Link fields are reserved (SR-IOV 1.1
 * 3.5) — lspci read the function through its link, so the link is up. A LnkCap that names a speed and width is a
 * real link's: its zero LnkSta means the link is down (gpu_link_down.txt's case), not a VF. */
gboolean
lspci_link_reads_zero (const Dev *d)
{
  return d->express && strstr (d->express, "Endpoint") && link_field_zero (d, F_LNKSTA)
      && (!d->f[F_LNKCAP].line || link_field_zero (d, F_LNKCAP));
}

gboolean
lspci_link_down (const Dev *d)
{
  const Field *f = &d->f[F_LNKSTA];
  gssize wd = f->line ? find_word (f, "Width", " ") : -1;
  return wd >= 0 && g_str_has_prefix (f->text->str + wd + 1, "x0") && strchr (" ,;", f->text->str[wd + 3])
      && !lspci_link_reads_zero (d);
}

int
lspci_flag (const Dev *d, int fi, const char *flag)
{
  return d->f[fi].line ? read_flag (&d->f[fi], flag, NULL) : -1;
}

int64_t
lspci_devcap_mps (const Dev *d)
{
  int64_t v = 0;
  Src src;
  Text none = { "", NULL, NULL };
  return d->f[F_DEVCAP].line && read_bytes (&none, d, F_DEVCAP, "MaxPayload", 128, 4096, &v, &src, NULL) ? v : 0;
}

/* endpoint.tags from DevCtl's ExtTag and DevCtl2's 10BitTagReq. */
static gboolean
read_tags (const Text *t, const Dev *d, const Dev *pf, Values *v, GError **error)
{
  /* A VF's DevCtl ExtTag is RsvdP (SR-IOV 1.1 3.5; Linux's pci_configure_extended_tags() says so): the PF's bit
   * is the VF's. Its 10-bit tags are enabled in the PF's SR-IOV Control (PCIe 5.0), not read here. */
  const Dev *td = pf ? pf : d;
  const Field *ctl = &td->f[F_DEVCTL];
  int ext = read_flag (ctl, "ExtTag", &v->tags_src);
  if (ext < 0) {
    ps_error_located (error, PS_ERROR_DATA, t->name, ctl->line, ctl->col, "DevCtl of %s shows no ExtTag+ or ExtTag- "
                      "(every lspci prints it)", td->shown);
    return FALSE;
  }
  if (pf) {
    v->tags = ext ? 256 : 32;
    v->tags_why = ext ? "8-bit tags enabled in the PF's DevCtl, whose ExtTag a VF's follows (SR-IOV 1.1 3.5; spec "
                        "2.2.6.2: 256)"
                      : "5-bit tags: the PF's DevCtl, whose ExtTag a VF's follows, has ExtTag off (SR-IOV 1.1 3.5; "
                        "spec 2.2.6.2: 32)";
    return TRUE;
  }
  Src s10;
  int ten = d->f[F_DEVCTL2].line ? read_flag (&d->f[F_DEVCTL2], "10BitTagReq", &s10) : -1;
  int cap10 = d->f[F_DEVCAP2].line ? read_flag (&d->f[F_DEVCAP2], "10BitTagReq", NULL) : -1;
  int capext = d->f[F_DEVCAP].line ? read_flag (&d->f[F_DEVCAP], "ExtTag", NULL) : -1;
  /* Spec §2.2.6.2: 5-bit tags give 32 reads in flight, 8-bit (Extended Tag Field Enable) 256, 10-bit (10-Bit Tag
   * Requester Enable) 768. */
  if (ten == 1) {
    v->tags = 768;
    v->tags_src = s10;
    v->tags_why = "10-bit tags enabled (spec 2.2.6.2: 768)";
  } else {
    v->tags = ext ? 256 : 32;
    v->tags_why = ext ? "8-bit tags enabled (spec 2.2.6.2: 256)" : "5-bit tags (ExtTag off; spec 2.2.6.2: 32)";
    if (cap10 == 1)
      v->tags_note = g_strdup ("DevCap2 says the device can send 10-bit tags (768) but DevCtl2 leaves them off; "
                               "--set endpoint.tags=768 shows what enabling them would give");
    else if (!ext && capext == 1)
      v->tags_note = g_strdup ("DevCap says the device can use 8-bit tags (256) but DevCtl leaves ExtTag off; "
                               "--set endpoint.tags=256 shows what enabling it would give");
    else if (ten < 0 && d->f[F_DEVCTL2].line)
      v->tags_note = g_strdup ("this lspci does not show DevCtl2's 10BitTagReq (pciutils 3.6 and later do): 10-bit "
                               "tags, if enabled, are not counted");
  }
  return TRUE;
}

gboolean
lspci_read_requests (const Text *t, const Dev *d, const Dev *pf, Values *v, GError **error)
{
  return read_bytes (t, d, F_DEVCTL, "MaxReadReq", 128, 4096, &v->mrrs, &v->mrrs_src, error)
      && read_tags (t, d, pf, v, error);
}

/* Everything the config needs from the device, or a located error. */
gboolean
lspci_read_values (const Text *t, const Dev *d, const Dev *pf, Values *v, GError **error)
{
  if (!check_fields (t, d, error) || (pf && !check_fields (t, pf, error)))
    return FALSE;
  if (!pf && lspci_link_down (d)) {
    const Field *f = &d->f[F_LNKSTA];
    LinkVals cap = { 0 };
    gboolean known = d->f[F_LNKCAP].line && lspci_read_link (t, d, F_LNKCAP, &cap, NULL);
    g_autofree char *can = known ? g_strdup_printf (" (LnkCap: it can run Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT
                                                    ")", cap.gen, cap.lanes) : g_strdup ("");
    ps_error_located (error, PS_ERROR_DATA, t->name, f->line, f->col, "%s's link is down: LnkSta reads width x0%s, "
                      "so there is no link to simulate; reseat the card or check the slot, then dump again (`sudo "
                      "lspci -vvv -s %s`), or give its capability by hand (--set link.gen, link.lanes)", d->shown,
                      can, d->shown);
    return FALSE;
  }
  if (!pf && lspci_link_reads_zero (d)) {
    const Field *f = &d->f[F_LNKSTA];
    ps_error_located (error, PS_ERROR_DATA, t->name, f->line, f->col, "%s's LnkSta reads Speed unknown, Width x0: "
                      "it is an SR-IOV virtual function (lspci read it through its link, so the zeros are the "
                      "reserved Link Status of a VF, SR-IOV 1.1 3.5), whose link, MaxPayload and RCB are its "
                      "physical function's, and no SR-IOV capability in this dump counts it among its VFs; dump the "
                      "PF too, `{ sudo lspci -vvv -s %s; sudo lspci -vvv -s $(basename $(readlink "
                      "/sys/bus/pci/devices/%s/physfn)); } > dump.txt` (physfn names the PF), and import that",
                      d->shown, d->shown, d->bdf);
    return FALSE;
  }
  /* A VF's link is its PF's (SR-IOV 1.1 3.5: a VF's Link Capabilities, Control and Status are reserved), and so is
   * its MaxPayload (DevCtl's Max_Payload_Size is RsvdP in a VF, the PF's setting applies); its MaxReadReq is its
   * own. */
  const Dev *l = pf ? pf : d;
  v->link_dev = l;
  if (pf) {
    v->link_why = "the PF's LnkSta: a VF has no link of its own (SR-IOV 1.1 3.5)";
    v->mps_why = "the PF's DevCtl: a VF's MaxPayload is RsvdP, the PF's applies (SR-IOV 1.1 3.5)";
    v->rcb_why = "the PF's LnkCtl: a VF's Link Control is reserved (SR-IOV 1.1 3.5)";
  }
  if (!lspci_read_link (t, l, F_LNKSTA, &v->sta, error)
      || (l->f[F_LNKCAP].line && !lspci_read_link (t, l, F_LNKCAP, &v->cap, error))
      || !read_bytes (t, l, F_DEVCTL, "MaxPayload", 128, 4096, &v->mps, &v->mps_src, error)
      || !read_bytes (t, d, F_DEVCTL, "MaxReadReq", 128, 4096, &v->mrrs, &v->mrrs_src, error)
      || !read_bytes (t, l, F_LNKCTL, "RCB", 64, 128, &v->rcb, &v->rcb_src, error))
    return FALSE;
  if (!l->f[F_LNKCAP].line)
    v->cap = v->sta;
  return read_tags (t, d, pf, v, error);
}

/* "16 MB" for a comment. */
