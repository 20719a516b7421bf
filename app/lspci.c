/* lspci.c — `pciesim import lspci`: the dump read into fields, the tree into parents, the config written with
 * the line each value came from. The formats are those pciutils prints (lib and ls-caps.c, ls-tree.c): see
 * lspci.h for what is read and docs/reference/pcie-protocol.md for what the registers mean. */
#include "lspci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "app/config.h"
#include "app/load.h"
#include "app/error.h"
#include "app/format.h"
#include "app/topology.h"
#include "app/validate.h"

/* --- lines ----------------------------------------------------------------------------------------------------- */

typedef struct {
  char *text; /* the line from its first non-blank character, trailing blanks cut */
  int indent; /* columns before it, a tab to the next multiple of 8 as a terminal shows it */
  int col; /* 1-based column of text, in bytes */
  gboolean label; /* starts "Word…:" as lspci's field labels do */
} Line;

typedef struct {
  const char *name;
  char *copy; /* the input with NULs at line ends; Line.text points into it */
  GArray *lines; /* of Line, index 0 = line 1 */
} Text;

static void
text_clear (Text *t)
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

static gboolean
split_lines (Text *t, const char *name, const char *data, gsize len, GError **error)
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

static inline Line *
line_at (const Text *t, guint i)
{
  return &g_array_index (t->lines, Line, i);
}

/* --- fields of a device ----------------------------------------------------------------------------------------- */

/* A labelled line with its continuation lines joined by blanks. `segs` maps offsets of the joined text back to
 * lines, so a value is reported at the line that holds it. */
typedef struct {
  guint from; /* offset in text */
  int line, col;
  const char *raw; /* that line's text, for the comment */
} Seg;

typedef struct {
  int line, col; /* 0 = absent */
  GString *text;
  GArray *segs;
} Field;

enum { F_DEVCAP, F_DEVCTL, F_LNKCAP, F_LNKCTL, F_LNKSTA, F_DEVCAP2, F_DEVCTL2, F_REGION0, F_N = F_REGION0 + 6 };
static const char *const field_labels[F_REGION0] = { "DevCap", "DevCtl", "LnkCap", "LnkCtl", "LnkSta", "DevCap2",
                                                     "DevCtl2" };

typedef struct {
  int line; /* of the header */
  unsigned domain, bus, dev, fn;
  char bdf[16]; /* "DDDD:BB:DD.F" */
  char *shown; /* the address as the dump writes it */
  const char *desc; /* the rest of the header line */
  int denied_line, denied_col;
  int express_line;
  const char *express; /* "Express (v2) Endpoint, MSI 00" */
  Field f[F_N];
} Dev;

static void
dev_clear (Dev *d)
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
static gboolean
parse_bdf (const char *s, gboolean tail, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn, int *len)
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

static void
format_bdf (char out[16], unsigned dom, unsigned bus, unsigned dev, unsigned fn)
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

static gboolean
is_header (const Line *l)
{
  unsigned a, b, c, d;
  int n;
  return parse_bdf (l->text, TRUE, &a, &b, &c, &d, &n);
}

/* One device: from its header to the next header. A field takes the lines after its label that are indented deeper
 * or carry no label, and stops at any line that is one of the fields read: each line joins at most one field, so
 * the work stays linear whatever the indentation. */
static gboolean
read_device (const Text *t, guint first, guint end, Dev *d, GError **error)
{
  const Line *h = line_at (t, first);
  int n;
  parse_bdf (h->text, TRUE, &d->domain, &d->bus, &d->dev, &d->fn, &n);
  format_bdf (d->bdf, d->domain, d->bus, d->dev, d->fn);
  d->shown = g_strndup (h->text, (gsize) n);
  d->desc = h->text + n + strspn (h->text + n, " \t");
  d->line = (int) first + 1;
  for (guint i = first + 1; i < end; i++) {
    const Line *l = line_at (t, i);
    if (l->label && g_str_has_prefix (l->text, "Capabilities:")) {
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
      continue;
    }
    int f = field_of (l);
    if (f < 0)
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

/* Where a value came from: for its comment ("FILE:LINE the line") and its errors. */
typedef struct {
  int line, col;
  const char *raw;
} Src;

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

typedef struct {
  int64_t gen, lanes;
  gboolean downgraded; /* lspci's marker on either */
  Src speed, width;
} LinkVals;

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
static gboolean
read_link (const Text *t, const Dev *d, int fi, LinkVals *v, GError **error)
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
  unsigned domain, bus, dev, fn;
  int parent; /* the bridge above (index), -1 on a root bus */
  int line, col;
} TDev;

typedef struct {
  unsigned domain, bus;
  int parent; /* the bridge whose secondary bus it is, -1 for a root bus */
} TBus;

/* ls-tree.c draws a bus's devices in one column after "+-", "\-" or "--": a bus header "[DDDD:BB]-" puts them 2
 * columns after its "-", a bridge "-[SS]-" or "-[SS-UU]-" 3 after (it adds a '-' of its own). Devices are read at
 * the column of the last bus that opened there: the drawing is depth-first. */
static gboolean
parse_tree (const Text *t, GArray *devs, GError **error)
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

/* --- writing --------------------------------------------------------------------------------------------------- */

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

typedef struct {
  LinkVals sta, cap;
  int64_t mps, mrrs, rcb, tags;
  Src mps_src, mrrs_src, rcb_src, tags_src;
  const char *tags_why;
  char *tags_note; /* a capability left unused, or NULL */
} Values;

/* Everything the config needs from the device, or a located error. */
static gboolean
read_values (const Text *t, const Dev *d, Values *v, GError **error)
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
  if (!read_link (t, d, F_LNKSTA, &v->sta, error)
      || (d->f[F_LNKCAP].line && !read_link (t, d, F_LNKCAP, &v->cap, error))
      || !read_bytes (t, d, F_DEVCTL, "MaxPayload", 128, 4096, &v->mps, &v->mps_src, error)
      || !read_bytes (t, d, F_DEVCTL, "MaxReadReq", 128, 4096, &v->mrrs, &v->mrrs_src, error)
      || !read_bytes (t, d, F_LNKCTL, "RCB", 64, 128, &v->rcb, &v->rcb_src, error))
    return FALSE;
  if (!d->f[F_LNKCAP].line)
    v->cap = v->sta;
  const Field *ctl = &d->f[F_DEVCTL];
  int ext = read_flag (ctl, "ExtTag", &v->tags_src);
  if (ext < 0) {
    ps_error_located (error, PS_ERROR_DATA, t->name, ctl->line, ctl->col, "DevCtl of %s shows no ExtTag+ or ExtTag- "
                      "(every lspci prints it)", d->shown);
    return FALSE;
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

/* "16 MB" for a comment. */
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
put_gen_lanes (GString *out, const char *indent, const char *file, const LinkVals *sta)
{
  g_autofree char *g = g_strdup_printf ("gen: %" G_GINT64_FORMAT, sta->gen);
  g_autofree char *l = g_strdup_printf ("lanes: %" G_GINT64_FORMAT, sta->lanes);
  put (out, indent, g, file, &sta->speed, NULL);
  put (out, indent, l, file, &sta->width, NULL);
}

/* The tree part: the chain of bridges from the root to the device, as root complex, switches and links. */
static gboolean
write_topology (GString *out, const Text *dump, const Dev *devs, guint n_devs, const Dev *d, const Values *v,
                const Text *tree, GError **error)
{
  g_autoptr (GArray) td = g_array_new (FALSE, FALSE, sizeof (TDev));
  if (!parse_tree (tree, td, error))
    return FALSE;
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
  g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (int));
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
  /* Each link of the chain: below the root port or a downstream port. Its width and speed are the LnkSta of the
   * port below it (the switch's upstream port) when the dump has it, else of the port above; the last link is the
   * device's own (link.gen, link.lanes). */
  guint n_links = k / 2 + 1;
  g_autofree LinkVals *lv = g_new0 (LinkVals, n_links);
  g_autofree const Dev **lsrc = g_new0 (const Dev *, n_links);
  for (guint j = 0; j + 1 < n_links; j++) {
    for (guint side = 0; side < 2 && !lsrc[j]; side++) {
      const TDev *b = &g_array_index (td, TDev, g_array_index (chain, int, 2 * j + (side ? 0 : 1)));
      for (guint i = 0; i < n_devs; i++) {
        const Dev *x = &devs[i];
        if (x->domain == b->domain && x->bus == b->bus && x->dev == b->dev && x->fn == b->fn && x->f[F_LNKSTA].line
            && !x->denied_line) {
          if (!read_link (dump, x, F_LNKSTA, &lv[j], error))
            return FALSE;
          lsrc[j] = x;
          break;
        }
      }
    }
  }
  lv[n_links - 1] = v->sta;
  lsrc[n_links - 1] = d;
  char bdf[16];
  g_string_append (out, "topology:\n  nodes:\n");
  /* The root complex and each switch take the fastest and widest of their links, so every link can train to what
   * the dump says (a link trains to the lower of its two ends, README "Fabrics"). */
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
      format_bdf (bdf, rp->domain, rp->bus, rp->dev, rp->fn);
      g_autofree char *kv = g_strdup_printf ("host: {type: root_complex%s}", own);
      g_autofree char *why = g_strdup_printf ("root port %s", bdf);
      Src src = { rp->line, rp->col, line_at (tree, (guint) rp->line - 1)->text };
      put (out, "    ", kv, tree->name, &src, why);
    } else {
      const TDev *up = &g_array_index (td, TDev, g_array_index (chain, int, 2 * s - 1));
      const TDev *dn = &g_array_index (td, TDev, g_array_index (chain, int, 2 * s));
      char bdf2[16];
      format_bdf (bdf, up->domain, up->bus, up->dev, up->fn);
      format_bdf (bdf2, dn->domain, dn->bus, dn->dev, dn->fn);
      g_autofree char *kv = g_strdup_printf ("sw%u: {type: switch%s}", s, own);
      g_autofree char *why = g_strdup_printf ("upstream port %s, downstream port %s", bdf, bdf2);
      Src src = { up->line, up->col, line_at (tree, (guint) up->line - 1)->text };
      put (out, "    ", kv, tree->name, &src, why);
    }
  }
  /* The device's BARs from its Region lines: a 64-bit BAR takes two registers, lspci names the first. */
  g_autoptr (GString) bars = g_string_new (NULL);
  int last = -1;
  for (int r = 0; r < 6; r++)
    if (d->f[F_REGION0 + r].line)
      last = r;
  for (int r = 0; r <= last; r++) {
    const Field *f = &d->f[F_REGION0 + r];
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
    g_autofree char *kv = last >= 0 ? g_strdup_printf ("device: {type: endpoint, bars: [%s]}", bars->str)
                                    : g_strdup ("device: {type: endpoint}");
    Src src = { d->line, 1, line_at (dump, (guint) d->line - 1)->text };
    put (out, "    ", kv, dump->name, &src, last >= 0 ? "BARs from the Region lines below" : "no Region lines: "
         "pciesim's default BAR0");
  }
  put_bar_comments (out, "    ", dump->name, d);
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
  g_string_append (out, "# The device writes 1 MB into host memory and reads 1 MB from it, both at once (as the DMA\n"
                        "# benchmark's simultaneous mode). Add flows, or endpoints beside it, to ask more.\n"
                        "flows:\n"
                        "  - {name: write, source: device, target: host, op: write, bytes: 1048576}\n"
                        "  - {name: read, source: device, target: host, op: read, bytes: 1048576}\n");
  return TRUE;
}

/* The config text of device `d` with values `v`, after the comment block that says where it comes from. */
static gboolean
write_config (GString *o, const Text *t, const Text *tt, GArray *devs, const Dev *d, const Values *v,
              const char *host_include, const char *host_note, GString *notes, GError **error)
{
  g_autoptr (GString) fname = g_string_new (NULL);
  append_clean (fname, t->name, 256);
  g_string_append_printf (o, "# Imported by `pciesim import lspci` from %s, device %s:\n#   ", fname->str, d->shown);
  append_clean (o, d->desc, 100);
  g_string_append (o, "\n# Each value names the dump line it came from. The simulation runs the link as it trained "
                      "(LnkSta).\n");
  if (v->sta.gen < v->cap.gen || v->sta.lanes < v->cap.lanes || v->sta.downgraded) {
    g_autofree char *msg = g_strdup_printf ("%s trained at Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT " but can run "
                                            "Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT " (LnkCap, %s:%d): the slot, "
                                            "the riser, the port above or the card limits it", d->shown, v->sta.gen,
                                            v->sta.lanes, v->cap.gen, v->cap.lanes, fname->str, d->f[F_LNKCAP].line);
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
  put_gen_lanes (o, "  ", t->name, &v->sta);
  if (v->sta.gen != v->cap.gen || v->sta.lanes != v->cap.lanes) {
    g_string_append_printf (o, "  # capable of Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT ": %s:%d ", v->cap.gen,
                            v->cap.lanes, fname->str, v->cap.speed.line);
    append_clean (o, v->cap.speed.raw, 72);
    g_string_append_c (o, '\n');
  }
  char kv[64];
  g_snprintf (kv, sizeof kv, "max_payload: %" G_GINT64_FORMAT, v->mps);
  put (o, "  ", kv, t->name, &v->mps_src, NULL);
  g_snprintf (kv, sizeof kv, "max_read_request: %" G_GINT64_FORMAT, v->mrrs);
  put (o, "  ", kv, t->name, &v->mrrs_src, NULL);
  g_snprintf (kv, sizeof kv, "read_completion_boundary: %" G_GINT64_FORMAT, v->rcb);
  put (o, "  ", kv, t->name, &v->rcb_src, NULL);
  g_string_append (o, "endpoint:   # datapath_bits and clock_mhz are not in lspci: the model's default for the link\n");
  g_snprintf (kv, sizeof kv, "tags: %" G_GINT64_FORMAT, v->tags);
  put (o, "  ", kv, t->name, &v->tags_src, v->tags_why);
  if (v->tags_note)
    g_string_append_printf (o, "  # %s\n", v->tags_note);
  if (tt) {
    if (!write_topology (o, t, &g_array_index (devs, Dev, 0), devs->len, d, v, tt, error))
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

char *
ps_lspci_config (const char *dump_name, const char *dump, gsize dump_len, const char *tree_name, const char *tree,
                 gsize tree_len, const char *device, const char *host_include, const char *host_note,
                 GString *notes, GError **error)
{
  Text t = { 0 }, tt = { 0 };
  g_autoptr (GArray) devs = g_array_new (FALSE, TRUE, sizeof (Dev));
  g_array_set_clear_func (devs, (GDestroyNotify) dev_clear);
  char *result = NULL;
  Values v = { 0 };
  g_autoptr (GString) o = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (!split_lines (&t, dump_name, dump, dump_len, error) || (tree && !split_lines (&tt, tree_name, tree, tree_len,
                                                                                     error)))
    goto out;
  /* Devices: each header to the next. */
  for (guint i = 0; i < t.lines->len; i++) {
    if (!is_header (line_at (&t, i)))
      continue;
    guint end = i + 1;
    while (end < t.lines->len && !is_header (line_at (&t, end)))
      end++;
    /* 65536 functions fill a PCI domain's buses: more is no machine's dump. */
    if (devs->len == 65536) {
      ps_error_located (error, PS_ERROR_DATA, t.name, (int) i + 1, 1, "more than 65536 devices: not one machine's "
                        "lspci");
      goto out;
    }
    g_array_set_size (devs, devs->len + 1);
    Dev *d = &g_array_index (devs, Dev, devs->len - 1);
    if (!read_device (&t, i, end, d, error))
      goto out;
    gpointer first = g_hash_table_lookup (seen, d->bdf);
    if (first) {
      ps_error_located (error, PS_ERROR_DATA, t.name, d->line, 1, "%s is listed twice (first at line %d): two "
                        "dumps run together?", d->shown, GPOINTER_TO_INT (first));
      goto out;
    }
    g_hash_table_insert (seen, g_strdup (d->bdf), GINT_TO_POINTER (d->line));
    i = end - 1;
  }
  if (devs->len == 0) {
    ps_error_located (error, PS_ERROR_DATA, t.name, 1, 1, "no device: `lspci -vvv` starts each with a line such as "
                      "'01:00.0 Ethernet controller: …'");
    goto out;
  }
  const Dev *d = NULL;
  if (device) {
    unsigned a, b, c, e;
    int n;
    char want[16];
    if (!parse_bdf (device, FALSE, &a, &b, &c, &e, &n) || device[n]) {
      ps_error_plain (error, PS_ERROR_USAGE, "--device '%s' is no PCI address ([DDDD:]BB:DD.F, as lspci prints it)",
                      device);
      goto out;
    }
    format_bdf (want, a, b, c, e);
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
  if (!read_values (&t, d, &v, error))
    goto out;

  o = g_string_new (NULL);
  if (!write_config (o, &t, tree ? &tt : NULL, devs, d, &v, host_include, host_note, notes, error))
    goto out;
  result = g_string_free (g_steal_pointer (&o), FALSE);
out:
  g_free (v.tags_note);
  text_clear (&t);
  text_clear (&tt);
  return result;
}

/* --- files ----------------------------------------------------------------------------------------------------- */

static char *
read_input (const char *path, gsize *len, GError **error)
{
  char *data = NULL;
  g_autoptr (GError) e = NULL;
  if (!g_file_get_contents (path, &data, len, &e)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s", e->message);
    return NULL;
  }
  return data;
}

/* `to` relative to directory `from` (both absolute and canonical): "../configs/hosts/ideal.yaml". */
static char *
relative_path (const char *from, const char *to)
{
  g_auto (GStrv) a = g_strsplit (from, G_DIR_SEPARATOR_S, -1);
  g_auto (GStrv) b = g_strsplit (to, G_DIR_SEPARATOR_S, -1);
  guint i = 0;
  while (a[i] && b[i] && strcmp (a[i], b[i]) == 0)
    i++;
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint j = i; a[j]; j++)
    if (*a[j])
      g_string_append (s, ".." G_DIR_SEPARATOR_S);
  for (guint j = i; b[j]; j++)
    g_string_append_printf (s, "%s%s", b[j], b[j + 1] ? G_DIR_SEPARATOR_S : "");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Whether two absolute paths share a folder below the root: only then is a relative include shorter and does it
 * survive moving the tree they share. */
static gboolean
shares_folder (const char *a, const char *b)
{
  const char *sa = strchr (a + 1, G_DIR_SEPARATOR), *sb = strchr (b + 1, G_DIR_SEPARATOR);
  gsize na = sa ? (gsize) (sa - a) : strlen (a), nb = sb ? (gsize) (sb - b) : strlen (b);
  return na == nb && strncmp (a, b, na) == 0;
}

gboolean
ps_lspci_import (const PsLspciImport *imp, GError **error)
{
  gboolean to_stdout = !imp->output || strcmp (imp->output, "-") == 0;
  /* The host file: as given from here, else under the configs (./configs, the installed ones, the source's). */
  g_autofree char *configs_dir = ps_default_configs_dir ();
  g_autofree char *configs = g_canonicalize_filename (configs_dir, NULL);
  const char *host = imp->host ? imp->host : "hosts/ideal.yaml";
  g_autofree char *host_path = g_file_test (host, G_FILE_TEST_IS_REGULAR) && imp->host
      ? g_canonicalize_filename (host, NULL) : g_canonicalize_filename (host, configs);
  if (!g_file_test (host_path, G_FILE_TEST_IS_REGULAR)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "--host %s: no such file here or in %s", host, configs);
    return FALSE;
  }
  /* Relative to the output's folder, so the config and the checkout move together; absolute on stdout, which
   * may go anywhere. */
  g_autofree char *out_dir = to_stdout ? NULL : g_path_get_dirname (imp->output);
  g_autofree char *out_abs = out_dir ? g_canonicalize_filename (out_dir, NULL) : NULL;
  g_autofree char *include = out_abs && shares_folder (out_abs, host_path) ? relative_path (out_abs, host_path)
                                                                          : g_strdup (host_path);
  g_autofree char *note = imp->host ? g_strdup ("the host chosen with --host")
                                    : g_strdup ("no --host given: hosts/ideal.yaml, a host that never limits, so the "
                                                "figures are the device's and the link's upper bound");
  gsize dump_len = 0, tree_len = 0;
  g_autofree char *dump = read_input (imp->dump_path, &dump_len, error);
  if (!dump)
    return FALSE;
  g_autofree char *tree = imp->tree_path ? read_input (imp->tree_path, &tree_len, error) : NULL;
  if (imp->tree_path && !tree)
    return FALSE;
  g_autoptr (GString) notes = g_string_new (NULL);
  g_autofree char *text = ps_lspci_config (imp->dump_path, dump, dump_len, imp->tree_path, tree, tree_len,
                                           imp->device, include, note, notes, error);
  if (!text)
    return FALSE;
  /* Written beside the output (or in the temporary folder for stdout), loaded, then renamed into place: what
   * lands is a config the checks accept, and a failure leaves nothing. */
  g_autofree char *tmp = g_build_filename (out_abs ? out_abs : g_get_tmp_dir (), ".pciesim-import-XXXXXX", NULL);
  int fd = g_mkstemp (tmp);
  if (fd < 0) {
    ps_error_plain (error, PS_ERROR_CANTCREAT, "cannot write in %s: %s", out_abs ? out_abs : g_get_tmp_dir (),
                    g_strerror (errno));
    return FALSE;
  }
  close (fd);
  GString view = { text, strlen (text), strlen (text) + 1 };
  g_autoptr (GError) e = NULL;
  if (!g_file_set_contents (tmp, text, -1, &e)) {
    g_unlink (tmp);
    ps_error_plain (error, PS_ERROR_CANTCREAT, "%s", e->message);
    return FALSE;
  }
  g_autoptr (PsConfig) cfg = ps_config_load (tmp, NULL, &e);
  if (!cfg) {
    g_unlink (tmp);
    ps_error_plain (error, PS_ERROR_INTERNAL, "internal: the config imported from %s does not load: %s",
                    imp->dump_path, ps_error_text (e));
    return FALSE;
  }
  if (to_stdout) {
    g_unlink (tmp);
    if (!ps_write_output (NULL, &view, error))
      return FALSE;
  } else if (g_rename (tmp, imp->output) != 0) {
    int err = errno;
    g_unlink (tmp);
    ps_error_plain (error, PS_ERROR_CANTCREAT, "cannot write %s: %s", imp->output, g_strerror (err));
    return FALSE;
  }
  fputs (notes->str, stderr);
  return TRUE;
}
