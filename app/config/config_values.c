/* config_values.c — one YAML value converted into its key's PsConfig field, and a file's assumption ranges.
 *
 * cfg_convert_value() is the one converter behind file values, --set values and the table's defaults, so a
 * default can never be a value the file itself could not give. Every problem is located at the value's node
 * (FILE:LINE:COL or the --set) with PS_ERROR_DATA. An `assumptions:` section gives a numeric key a [LO, HI] range
 * (a boolean [false, true]: a behaviour that may or may not be there);
 * its ends go through the same converter, and a range belongs to the file that sets the value
 * (cfg_merge_assumptions()).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/config/config_private.h"
#include "app/base/error.h"

/* A PsConfig a test fills by hand has no origins: every key then reads as a default. */
const PsKeyOrigin *
cfg_origin_of (const PsConfig *cfg, size_t i)
{
  static const PsKeyOrigin unknown = { .from = PS_FROM_DEFAULT };
  return cfg->origins ? &cfg->origins[i] : &unknown;
}

/* Numbers and booleans must be plain scalars: "8" is a string in YAML, and accepting it would make a quoted
 * value mean different things in different places. */
static gboolean
want_scalar (const KeyDef *k, const YNode *n, const char *what, GError **error)
{
  if (n->kind != YNODE_SCALAR) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be %s, not %s", k->path, what, ytree_kind_name (n->kind));
    return FALSE;
  }
  if (k->type != K_STRING && !n->plain) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be %s, not a quoted string", k->path, what);
    return FALSE;
  }
  /* `key:` with nothing after it is an empty plain scalar (YAML's null): say it has no value, located just after
   * the colon, rather than that '' is no integer. A string may be empty ("" is name's own default). */
  if (k->type != K_STRING && n->value[0] == '\0') {
    ytree_error (error, PS_ERROR_DATA, n, "%s has no value (expected %s)", k->path, what);
    return FALSE;
  }
  return TRUE;
}

static gboolean
convert_bool (const KeyDef *k, const YNode *n, bool *out, GError **error)
{
  if (!want_scalar (k, n, "true or false", error))
    return FALSE;
  /* Only lower-case true and false: YAML 1.1's yes/no/on/off/y/n are refused, as they turn answers and country
   * codes (NO) into booleans by surprise, and YAML 1.1 and 1.2 readers disagree on them. */
  if (strcmp (n->value, "true") == 0 || strcmp (n->value, "false") == 0) {
    *out = n->value[0] == 't';
    return TRUE;
  }
  ytree_error (error, PS_ERROR_DATA, n, "%s must be true or false, got '%s'", k->path, n->value);
  return FALSE;
}

/* Integers are strict decimal (no 0x, no 8.0): configs are read by people, and sizes must be exact. */
static gboolean
convert_int (const KeyDef *k, const YNode *n, int64_t *out, GError **error)
{
  if (!want_scalar (k, n, "an integer", error))
    return FALSE;
  /* Parsed against the whole int64 range first, so OUT_OF_BOUNDS can only mean overflow and gets its own
   * message; the key's range is checked below, with its own numbers. */
  gint64 v;
  g_autoptr (GError) e = NULL;
  if (!g_ascii_string_to_signed (n->value, 10, G_MININT64, G_MAXINT64, &v, &e)) {
    if (g_error_matches (e, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
      ytree_error (error, PS_ERROR_DATA, n, "%s: %s does not fit in 64 bits", k->path, n->value);
    else
      ytree_error (error, PS_ERROR_DATA, n, "%s must be an integer, got '%s'", k->path, n->value);
    return FALSE;
  }
  /* The list goes first: its message names the valid values, where a range (lanes 1 to 16) would suggest 3. */
  if (k->allowed) {
    GString *list = g_string_new (NULL);
    gboolean ok = FALSE;
    for (const int64_t *a = k->allowed; *a >= 0; a++) {
      ok = ok || *a == v;
      g_string_append_printf (list, "%s%" G_GINT64_FORMAT, a == k->allowed ? "" : a[1] < 0 ? " or " : ", ", *a);
    }
    if (!ok)
      ytree_error (error, PS_ERROR_DATA, n, "%s must be %s (got %" G_GINT64_FORMAT ")", k->path, list->str, v);
    g_string_free (list, TRUE);
    if (!ok)
      return FALSE;
  }
  /* The range tests come first in the condition: they rule out v <= 0 before v & (v - 1), which is no
   * power-of-two test there (and overflows at INT64_MIN). One message then states both rules. */
  if (k->pow2 && ((double) v < k->min || (double) v > k->max || (v & (v - 1)) != 0)) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a power of two from %.0f to %.0f (got %" G_GINT64_FORMAT ")",
                 k->path, k->min, k->max, v);
    return FALSE;
  }
  if ((double) v < k->min || (double) v > k->max) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be between %.0f and %.0f (got %" G_GINT64_FORMAT ")", k->path,
                 k->min, k->max, v);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* Doubles reject NaN and infinities: every model parameter is a finite physical quantity. */
static gboolean
convert_double (const KeyDef *k, const YNode *n, double *out, GError **error)
{
  if (!want_scalar (k, n, "a number", error))
    return FALSE;
  /* g_ascii_strtod, not strtod: '.' is the decimal point whatever the locale, so a config means the same for
   * every user and every caller (main() sets LC_NUMERIC, but the library does not rely on it). 1e400 overflows
   * to infinity and fails isfinite(); YAML's own .inf and .nan are no numbers to strtod and fail the end test. */
  char *end = NULL;
  double v = g_ascii_strtod (n->value, &end);
  if (end == n->value || *end != '\0' || !isfinite (v)) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a number, got '%s'", k->path, n->value);
    return FALSE;
  }
  if (v < k->min || v > k->max) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be between %g and %g (got %g)", k->path, k->min, k->max, v);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* A mode list may be one word or a sequence; "all" expands to every mode. The modes form a set: a repeat, or
 * "all" beside others, just ORs in bits already there. An empty list is refused, which lets 0 mean "no mode
 * given" elsewhere (PsCliRun.modes). */
static gboolean
convert_modes (const KeyDef *k, const YNode *n, unsigned *out, GError **error)
{
  const YNode *one = n;
  guint count = 1;
  if (n->kind == YNODE_SEQ) {
    count = n->items->len;
    if (count == 0) {
      ytree_error (error, PS_ERROR_DATA, n, "%s lists no mode", k->path);
      return FALSE;
    }
  } else if (n->kind != YNODE_SCALAR) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a mode or a list of modes, not %s", k->path,
                 ytree_kind_name (n->kind));
    return FALSE;
  }
  unsigned mask = 0;
  for (guint i = 0; i < count; i++) {
    if (n->kind == YNODE_SEQ)
      one = n->items->pdata[i];
    /* A nested list or mapping as an item is an unknown mode too, with no text to quote. */
    unsigned m = one->kind == YNODE_SCALAR ? ps_mode_parse (one->value) : 0;
    if (!m) {
      ytree_error (error, PS_ERROR_DATA, one, "%s: unknown mode%s%s (expected read, write, simultaneous, all, pio_read "
                   "or pio_write)",
                   k->path, one->kind == YNODE_SCALAR ? " " : "", one->kind == YNODE_SCALAR ? one->value : "");
      return FALSE;
    }
    mask |= m;
  }
  *out = mask;
  return TRUE;
}

/* A set of words from k->words: one word or a sequence, stored as a mask (bit i for words[i]). A repeat is
 * harmless; an empty list is refused, as an empty set would say nothing. */
static gboolean
convert_words (const KeyDef *k, const YNode *n, unsigned *out, GError **error)
{
  if (n->kind == YNODE_SEQ && n->items->len == 0) {
    ytree_error (error, PS_ERROR_DATA, n, "%s lists nothing", k->path);
    return FALSE;
  }
  if (n->kind != YNODE_SEQ && n->kind != YNODE_SCALAR) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a word or a list of words, not %s", k->path,
                 ytree_kind_name (n->kind));
    return FALSE;
  }
  guint count = n->kind == YNODE_SEQ ? n->items->len : 1;
  unsigned mask = 0;
  for (guint i = 0; i < count; i++) {
    const YNode *one = n->kind == YNODE_SEQ ? n->items->pdata[i] : n;
    int found = -1;
    for (int w = 0; one->kind == YNODE_SCALAR && k->words[w] && found < 0; w++)
      if (strcmp (k->words[w], one->value) == 0)
        found = w;
    if (found < 0) {
      g_autofree char *list = g_strjoinv (", ", (char **) k->words);
      ytree_error (error, PS_ERROR_DATA, one, "%s: unknown word%s%s (expected %s)", k->path,
                   one->kind == YNODE_SCALAR ? " " : "", one->kind == YNODE_SCALAR ? one->value : "", list);
      return FALSE;
    }
    mask |= 1u << found;
  }
  *out = mask;
  return TRUE;
}

/* A table of number pairs: a sequence of two-item sequences of numbers within the key's range (values) and
 * [0, 1] (probabilities). The order rules belong to the distribution and are checked with its kind
 * (check_dists()). */
static gboolean
convert_points (const KeyDef *k, const YNode *n, PsPoints *out, GError **error)
{
  if (n->kind != YNODE_SEQ) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a list of [value, probability] pairs, not %s", k->path,
                 ytree_kind_name (n->kind));
    return FALSE;
  }
  guint count = n->items->len;
  g_autofree double *pairs = g_new0 (double, 2 * (count ? count : 1));
  for (guint i = 0; i < count; i++) {
    const YNode *item = n->items->pdata[i];
    if (item->kind != YNODE_SEQ || item->items->len != 2) {
      ytree_error (error, PS_ERROR_DATA, item, "%s: each item must be a pair [value, probability]", k->path);
      return FALSE;
    }
    for (guint c = 0; c < 2; c++) {
      const YNode *v = item->items->pdata[c];
      const KeyDef part = { .path = k->path, .type = K_DOUBLE, .min = c ? 0 : k->min, .max = c ? 1 : k->max };
      if (!convert_double (&part, v, &pairs[2 * i + c], error))
        return FALSE;
    }
  }
  g_free (out->pairs); /* the default's, if any: defaults are converted first */
  out->n = count;
  out->pairs = g_steal_pointer (&pairs);
  return TRUE;
}

/* The one converter behind file values, --set values and defaults. It writes through `field` with the C type
 * that KeyDef.offset documents for each KeyType; a field of another type would be written at the wrong size,
 * silently. */
gboolean
cfg_convert_value (const KeyDef *k, const YNode *n, PsConfig *cfg, GError **error)
{
  void *field = (char *) cfg + k->offset;
  switch (k->type) {
  case K_INT:
    return convert_int (k, n, field, error);
  case K_DOUBLE:
    return convert_double (k, n, field, error);
  case K_BOOL:
    return convert_bool (k, n, field, error);
  case K_STRING:
    if (!want_scalar (k, n, "a string", error))
      return FALSE;
    /* Strings are labels printed inside table rows, CSV cells and Markdown tables: a line break or other control
     * character would split or corrupt the row, so it is refused here rather than escaped in every format. */
    for (const char *c = n->value; *c; c++)
      if ((unsigned char) *c < 0x20 || *c == 0x7f) {
        ytree_error (error, PS_ERROR_DATA, n, "%s must be one line of printable text (found control character "
                     "0x%02x)", k->path, (unsigned char) *c);
        return FALSE;
      }
    g_free (*(char **) field); /* the default's copy, if any: defaults are converted first */
    *(char **) field = g_strdup (n->value);
    return TRUE;
  case K_MODES:
    return convert_modes (k, n, field, error);
  case K_WORDS:
    return convert_words (k, n, field, error);
  case K_ENUM:
    if (!want_scalar (k, n, "a word", error))
      return FALSE;
    /* Case-sensitive, like keys: "Priority" is refused with the list of words rather than guessed. */
    for (int i = 0; k->words[i]; i++)
      if (strcmp (k->words[i], n->value) == 0) {
        *(int *) field = i;
        return TRUE;
      }
    {
      g_autofree char *list = g_strjoinv (", ", (char **) k->words);
      ytree_error (error, PS_ERROR_DATA, n, "%s must be one of %s (got '%s')", k->path, list, n->value);
    }
    return FALSE;
  case K_POINTS:
    return convert_points (k, n, field, error);
  }
  /* No default: label, so -Wswitch (an error with werror) flags a KeyType added without a converter. */
  return FALSE;
}

/* One end of a range, through the key's own converter: the same bounds, power-of-two and allowed-list rules as
 * the value, so every sample drawn between the ends is a value the key could be given. */
static gboolean
range_end (const KeyDef *k, const YNode *n, double *out, GError **error)
{
  if (k->type == K_INT) {
    int64_t v;
    if (!convert_int (k, n, &v, error))
      return FALSE;
    *out = (double) v;
    return TRUE;
  }
  if (k->type == K_BOOL) {
    bool b;
    if (!convert_bool (k, n, &b, error))
      return FALSE;
    *out = b;
    return TRUE;
  }
  return convert_double (k, n, out, error);
}

/* A file's assumptions: section, checked on its own (before any merge, so errors point into the file): a mapping
 * of known numeric keys to [LO, HI] with LO < HI, of boolean ones to [false, true]. */
gboolean
cfg_check_assumptions (const YNode *a, GError **error)
{
  if (a->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, a, "assumptions must be a mapping of KEY: [LO, HI], not %s",
                 ytree_kind_name (a->kind));
    return FALSE;
  }
  for (guint i = 0; i < a->keys->len; i++) {
    const YNode *kn = a->keys->pdata[i], *vn = a->items->pdata[i];
    const KeyDef *k = cfg_find_key (kn->value);
    if (!k) {
      g_autofree char *hint = cfg_suggest_path (kn->value);
      ytree_error (error, PS_ERROR_DATA, kn, "assumptions: unknown key '%s'%s%s%s", kn->value,
                   hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
      return FALSE;
    }
    /* A published figure is a measurement, compared and never an input (CONTRIBUTING.md): nothing to assume. */
    if (g_str_has_prefix (kn->value, "published.")) {
      ytree_error (error, PS_ERROR_DATA, kn, "assumptions: '%s' is a published measurement, only compared, never "
                   "an input of the model: it has no range", kn->value);
      return FALSE;
    }
    if (k->type != K_INT && k->type != K_DOUBLE && k->type != K_BOOL) {
      ytree_error (error, PS_ERROR_DATA, kn, "assumptions: '%s' is not numeric (%s): only a number or a boolean "
                   "has a range", kn->value, k->type == K_ENUM || k->type == K_WORDS ? "a choice of words"
                                                                                       : cfg_type_name (k));
      return FALSE;
    }
    if (vn->kind != YNODE_SEQ || vn->items->len != 2) {
      ytree_error (error, PS_ERROR_DATA, vn, "assumptions: the range of %s must be [LO, HI]", kn->value);
      return FALSE;
    }
    double lo, hi;
    if (!range_end (k, vn->items->pdata[0], &lo, error) || !range_end (k, vn->items->pdata[1], &hi, error))
      return FALSE;
    if (!(lo < hi) && k->type == K_BOOL) {
      ytree_error (error, PS_ERROR_DATA, vn, "assumptions: the range of %s must be [false, true]", kn->value);
      return FALSE;
    }
    if (!(lo < hi)) {
      ytree_error (error, PS_ERROR_DATA, vn, "assumptions: the range of %s must have LO < HI (got [%g, %g])",
                   kn->value, lo, hi);
      return FALSE;
    }
  }
  return TRUE;
}

/* TRUE if the tree `map` gives a value at dotted `path`. */
static gboolean
tree_has (const YNode *map, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i]; i++) {
    if (!map || map->kind != YNODE_MAP)
      return FALSE;
    map = ytree_map_get (map, parts[i]);
  }
  return map != NULL;
}

/* Before `file` goes over `base` (what its includes gave): a range belongs to the file that sets the value, so a
 * file that sets a key again without a range of its own (a sourced value over an assumed one) drops the earlier
 * range. A range it gives replaces the earlier one when the two merge. */
static void
drop_replaced (YNode *earlier, const YNode *file, const YNode *own)
{
  for (guint i = earlier && earlier->kind == YNODE_MAP ? earlier->keys->len : 0; i-- > 0;) {
    const char *key = ((const YNode *) earlier->keys->pdata[i])->value;
    if (tree_has (file, key) && !(own && own->kind == YNODE_MAP && ytree_map_get (own, key))) {
      g_autofree char *k = g_strdup (key);
      ytree_free (ytree_map_take (earlier, k));
    }
  }
}

gboolean
cfg_merge_assumptions (YNode *base, const YNode *file, GError **error)
{
  const YNode *own = ytree_map_get (file, "assumptions");
  if (own && !cfg_check_assumptions (own, error))
    return FALSE;
  drop_replaced (ytree_map_get (base, "assumptions"), file, own);
  /* A fabric node's own ranges (topology.nodes.NAME.assumptions) follow the same rule, node by node. */
  const YNode *nodes = tree_has (file, "topology.nodes") ? ytree_map_get (ytree_map_get (file, "topology"), "nodes")
                                                          : NULL;
  YNode *base_nodes = tree_has (base, "topology.nodes") ? ytree_map_get (ytree_map_get (base, "topology"), "nodes")
                                                         : NULL;
  for (guint i = 0; nodes && base_nodes && nodes->kind == YNODE_MAP && base_nodes->kind == YNODE_MAP
                    && i < nodes->keys->len; i++) {
    const YNode *node = nodes->items->pdata[i];
    YNode *earlier = ytree_map_get (base_nodes, ((const YNode *) nodes->keys->pdata[i])->value);
    if (node->kind == YNODE_MAP && earlier && earlier->kind == YNODE_MAP)
      drop_replaced (ytree_map_get (earlier, "assumptions"), node, ytree_map_get (node, "assumptions"));
  }
  return TRUE;
}

/* After the walk: keep the ranges of keys no --set replaced, each of which must contain its value. */
gboolean
cfg_take_assumptions (PsConfig *cfg, const YNode *a, GError **error)
{
  if (!a)
    return TRUE;
  cfg->assumptions = g_new0 (PsAssumption, a->keys->len);
  for (guint i = 0; i < a->keys->len; i++) {
    const YNode *kn = a->keys->pdata[i], *vn = a->items->pdata[i];
    const KeyDef *k = cfg_find_key (kn->value);
    if (cfg_origin_of (cfg, (size_t) (k - cfg_keys))->from == PS_FROM_SET)
      continue;
    double lo, hi, v = ps_config_number (cfg, k->path);
    range_end (k, vn->items->pdata[0], &lo, NULL);
    range_end (k, vn->items->pdata[1], &hi, NULL);
    if (v < lo || v > hi) {
      ytree_error (error, PS_ERROR_DATA, vn, "assumptions: the range [%g, %g] of %s does not contain its value %g",
                   lo, hi, k->path, v);
      return FALSE;
    }
    cfg->assumptions[cfg->n_assumptions++] = (PsAssumption) {
      g_strdup (k->path), lo, hi, g_strdup_printf ("%s:%d:%d", vn->origin, vn->line, vn->col), v };
  }
  return TRUE;
}

/* Defaults that are ASSUMPTIONs (their key's doc says so, with the reason): each one's range as data, as a file's
 * assumptions: section gives it. No switch datasheet gives a port's receive path to its data link layer: a few
 * clocks of a 250-500 MHz core for the PHY (deskew, decoding) and the CRC check, a part of the 105-160 ns port to
 * port (pcie-protocol.md §8). The fraction of flit-mode error events that span every lane: see its key's doc
 * (config_keys.c), moved only where it can matter (link.ber > 0 in flit mode). The transaction layer's part of a
 * receive pipeline: anything from none of it to all of it (no datasheet splits a hard IP's receive latency), so
 * only where there is a pipeline to split. */
static const struct {
  const char *key;
  double lo, hi;
} default_ranges[] = {
  { "switch.dll_latency_ns", 20, 100 },
  { "link.flit_error_lane_correlation", 0.001, 0.03 },
  { "link.rx_transaction_ns", 0, 1e6 },
};

gboolean
ps_config_default_range (const char *path, double *lo, double *hi)
{
  for (size_t i = 0; i < G_N_ELEMENTS (default_ranges); i++)
    if (strcmp (default_ranges[i].key, path) == 0) {
      *lo = default_ranges[i].lo;
      *hi = default_ranges[i].hi;
      return TRUE;
    }
  return FALSE;
}

void
ps_config_assume_defaults (PsConfig *cfg, guint switches)
{
  for (size_t i = 0; i < G_N_ELEMENTS (default_ranges); i++) {
    const KeyDef *k = cfg_find_key (default_ranges[i].key);
    if (cfg_origin_of (cfg, (size_t) (k - cfg_keys))->from != PS_FROM_DEFAULT
        || (g_str_has_prefix (k->path, "switch.") && switches == 0)
        || (g_str_has_prefix (k->path, "link.flit_error")
            && !(cfg->link.ber > 0 && (cfg->link.flit_mode || cfg->link.gen == 6))))
      continue;
    /* The data link layer's part of a port's latency is at most the whole (ps_config_check_fabric_keys()). */
    double hi = strcmp (k->path, "switch.dll_latency_ns") == 0   ? MIN (default_ranges[i].hi, cfg->sw.latency_ns)
                : strcmp (k->path, "link.rx_transaction_ns") == 0 ? MIN (default_ranges[i].hi, cfg->link.rx_pipeline_ns)
                                                                  : default_ranges[i].hi;
    double v = ps_config_number (cfg, k->path);
    if (!(default_ranges[i].lo < hi && default_ranges[i].lo <= v && v <= hi))
      continue;
    cfg->assumptions = g_renew (PsAssumption, cfg->assumptions, cfg->n_assumptions + 1);
    cfg->assumptions[cfg->n_assumptions++] = (PsAssumption) {
      g_strdup (k->path), default_ranges[i].lo, hi,
      g_strdup_printf ("the default of %s (pciesim keys)", k->path), v };
  }
}

double
ps_config_number (const PsConfig *cfg, const char *path)
{
  const KeyDef *k = cfg_find_key (path);
  const void *field = k ? (const char *) cfg + k->offset : NULL;
  return !k ? NAN : k->type == K_INT ? (double) *(const int64_t *) field
                  : k->type == K_DOUBLE ? *(const double *) field
                  : k->type == K_BOOL ? (double) *(const bool *) field : NAN;
}
