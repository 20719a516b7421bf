/* config_emit.c — a loaded config written back out: each key's value and origin as resolved_config JSON and as
 * CSV comment lines, and the key table as `pciesim keys` prints it (a table, or Markdown for the manual).
 *
 * The JSON value text is the one rendering of a value: the comment lines reuse it, so the two cannot disagree. A
 * key left at its default that a run of this kind never reads (a fabric's keys in a one-link config, a feature
 * off by default) is not written, so the reports of older configs stay byte for byte what they were.
 */
#include <string.h>

#include "app/config/config_private.h"
#include "app/base/error.h"

const char *
ps_from_name (PsFrom from)
{
  switch (from) {
  case PS_FROM_DEFAULT:
    return "default";
  case PS_FROM_FILE:
    return "file";
  case PS_FROM_INCLUDE:
    return "include";
  case PS_FROM_SET:
    return "set";
  case PS_FROM_ABSENT:
    return "absent";
  }
  return "?";
}

const PsKeyOrigin *
ps_config_origin (const PsConfig *cfg, const char *path)
{
  const KeyDef *k = cfg_find_key (path);
  return k ? cfg_origin_of (cfg, (size_t) (k - cfg_keys)) : NULL;
}

/* Computed once per load (record_origins()), since every rendering of a result asks. */
char *
cfg_set_changes (const PsConfig *cfg)
{
  GString *list = NULL;
  for (size_t i = 0; i < cfg_n_keys; i++)
    if (cfg->origins[i].from == PS_FROM_SET && !ps_config_key_is_output (cfg_keys[i].path)) {
      if (!list)
        list = g_string_new (NULL);
      g_string_append_printf (list, "%s%s", list->len ? ", " : "", cfg_keys[i].path);
    }
  return list ? g_string_free (list, FALSE) : NULL;
}

const char *
ps_config_set_changes (const PsConfig *cfg)
{
  return cfg->set_changes;
}

/* One key's value in JSON: the type the table gives it, so a script reads numbers as numbers. Doubles take 15
 * significant digits, which give back every decimal a config can hold (0.3, 1e7) without binary noise. */
static void
value_json (const KeyDef *k, const PsConfig *cfg, PsJson *j)
{
  const void *field = (const char *) cfg + k->offset;
  switch (k->type) {
  case K_INT:
    ps_json_int (j, *(const int64_t *) field);
    return;
  case K_DOUBLE:
    /* Absent published figures are NaN, which ps_json_general() writes as null. */
    ps_json_general (j, *(const double *) field, 15);
    return;
  case K_BOOL:
    ps_json_bool (j, *(const bool *) field);
    return;
  case K_STRING:
    if (*(char *const *) field)
      ps_json_string (j, *(char *const *) field);
    else
      ps_json_raw (j, "null");
    return;
  case K_MODES: {
    unsigned m = *(const unsigned *) field;
    ps_json_array (j, 0);
    for (unsigned bit = PS_MODE_READ; bit <= PS_MODE_PIO_WRITE; bit <<= 1)
      if (m & bit)
        ps_json_string (j, ps_mode_name (bit));
    ps_json_end (j);
    return;
  }
  case K_ENUM:
    ps_json_string (j, k->words[*(const int *) field]);
    return;
  case K_WORDS: {
    /* The only set of words is published.suspect.figures, whose absence (no bit) reads as null like an absent
     * published figure. */
    unsigned m = *(const unsigned *) field;
    if (!m) {
      ps_json_raw (j, "null");
      return;
    }
    ps_json_array (j, 0);
    for (int w = 0; k->words[w]; w++)
      if (m & (1u << w))
        ps_json_string (j, k->words[w]);
    ps_json_end (j);
    return;
  }
  case K_POINTS: {
    const PsPoints *pts = field;
    ps_json_array (j, 0);
    for (guint i = 0; i < pts->n; i++) {
      ps_json_array (j, 0);
      ps_json_general (j, pts->pairs[2 * i], 15);
      ps_json_general (j, pts->pairs[2 * i + 1], 15);
      ps_json_end (j);
    }
    ps_json_end (j);
    return;
  }
  }
}

static gboolean
key_written (const PsConfig *cfg, size_t i)
{
  if (cfg_origin_of (cfg, i)->from != PS_FROM_DEFAULT)
    return TRUE;
  const char *path = cfg_keys[i].path;
  return !ps_config_key_off_by_default (path) && (!ps_config_key_fabric_only (path) || cfg->topology);
}

void
ps_config_write_json (const PsConfig *cfg, PsJson *j, int indent)
{
  ps_json_object (j, indent);
  for (size_t i = 0; i < cfg_n_keys; i++) {
    if (!key_written (cfg, i))
      continue;
    const PsKeyOrigin *o = cfg_origin_of (cfg, i);
    ps_json_key (j, cfg_keys[i].path);
    ps_json_object (j, 0);
    ps_json_key (j, "value");
    value_json (&cfg_keys[i], cfg, j);
    ps_json_string_member (j, "from", ps_from_name (o->from));
    if (o->at)
      ps_json_string_member (j, "at", o->at);
    if (o->rule)
      ps_json_string_member (j, "rule", o->rule);
    ps_json_end (j);
  }
  ps_json_end (j);
}

static char *
value_text (const KeyDef *k, const PsConfig *cfg)
{
  GString *v = g_string_new (NULL);
  PsJson j;
  ps_json_init (&j, v);
  value_json (k, cfg, &j);
  return g_string_free (v, FALSE);
}

char *
ps_config_value_text (const PsConfig *cfg, const char *path)
{
  const KeyDef *k = cfg_find_key (path);
  return k ? value_text (k, cfg) : NULL;
}

/* Comment lines reuse the JSON value text, so the two cannot disagree on a value. */
void
ps_config_write_comments (const PsConfig *cfg, GString *out)
{
  for (size_t i = 0; i < cfg_n_keys; i++) {
    if (!key_written (cfg, i))
      continue;
    const PsKeyOrigin *o = cfg_origin_of (cfg, i);
    g_autofree char *v = value_text (&cfg_keys[i], cfg);
    /* "(--set link.lanes=4)" says it all; the other origins are named, then located or explained. */
    if (o->from == PS_FROM_SET)
      g_string_append_printf (out, "# %s = %s (%s)\n", cfg_keys[i].path, v, o->at);
    else
      g_string_append_printf (out, "# %s = %s (%s%s%s%s%s)\n", cfg_keys[i].path, v, ps_from_name (o->from),
                              o->at ? " " : "", o->at ? o->at : "", o->rule ? ": " : "", o->rule ? o->rule : "");
  }
}

static gint
cmp_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GHashTable *
ps_config_shipped_ranges (const char *dir)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  const char *const subdirs[] = { "", "hosts", "families", "benchmarks", NULL };
  for (const char *const *sub = subdirs; *sub; sub++) {
    g_autofree char *d = g_build_filename (dir, *sub, NULL);
    g_autoptr (GDir) gd = g_dir_open (d, 0, NULL);
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    for (const char *n; gd && (n = g_dir_read_name (gd));)
      if (g_str_has_suffix (n, ".yaml"))
        g_ptr_array_add (names, g_strdup (n));
    /* Directory order is the filesystem's: sorted, the list reads the same everywhere (and in docs/configs.md). */
    g_ptr_array_sort (names, cmp_name);
    for (guint i = 0; i < names->len; i++) {
      g_autofree char *path = g_build_filename (d, names->pdata[i], NULL);
      g_autoptr (YNode) tree = ytree_load_file (path, NULL);
      const YNode *a = tree && tree->kind == YNODE_MAP ? ytree_map_get (tree, "assumptions") : NULL;
      if (!a || !cfg_check_assumptions (a, NULL))
        continue;
      for (guint k = 0; k < a->keys->len; k++) {
        const YNode *kn = a->keys->pdata[k], *vn = a->items->pdata[k];
        GPtrArray *list = g_hash_table_lookup (h, kn->value);
        if (!list) {
          list = g_ptr_array_new_with_free_func (g_free);
          g_hash_table_insert (h, g_strdup (kn->value), list);
        }
        g_ptr_array_add (list, g_strdup_printf ("%s%s%s [%s, %s]", *sub, **sub ? "/" : "", (char *) names->pdata[i],
                                                ((YNode *) vn->items->pdata[0])->value,
                                                ((YNode *) vn->items->pdata[1])->value));
      }
    }
  }
  return h;
}

/* In table order. A key without a default shows as (required), or as (absent) under published.: the rule that
 * ps_config_load() enforces. `ranges` (ps_config_shipped_ranges(), may be NULL) adds to a key's meaning the files
 * that give it a range (one line per key stays one line per key: scripts read the table). */
void
ps_config_print_keys (GString *out, gboolean markdown, GHashTable *ranges)
{
  if (markdown)
    g_string_append (out, "| key | type | default | unit | meaning and source |\n|---|---|---|---|---|\n");
  for (size_t i = 0; i < cfg_n_keys; i++) {
    const KeyDef *k = &cfg_keys[i];
    g_autofree char *range = NULL;
    if (k->allowed) {
      GString *s = g_string_new (NULL);
      for (const int64_t *a = k->allowed; *a >= 0; a++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, a == k->allowed ? "" : "/", *a);
      range = g_string_free (s, FALSE);
    } else if (k->words) {
      range = g_strjoinv ("/", (char **) k->words);
    } else if (k->type == K_INT || k->type == K_DOUBLE || k->type == K_POINTS) {
      range = g_strdup_printf ("%g–%g", k->min, k->max);
    } else {
      range = g_strdup ("");
    }
    const char *dflt = k->dflt ? k->dflt : g_str_has_prefix (k->path, "published.") ? "(absent)" : "(required)";
    /* The two datapath keys default per link, not to the one value their table line holds. */
    if (g_str_has_prefix (k->path, "endpoint.datapath_bits") || g_str_has_prefix (k->path, "endpoint.clock_mhz"))
      dflt = "(per link)";
    GPtrArray *files = ranges ? g_hash_table_lookup (ranges, k->path) : NULL;
    g_autofree char *assumed = NULL;
    if (files) {
      g_ptr_array_add (files, NULL);
      g_autofree char *joined = g_strjoinv ("; ", (char **) files->pdata);
      g_ptr_array_remove_index (files, files->len - 1);
      assumed = g_strdup_printf ("an ASSUMPTION with a range in %s", joined);
    }
    double lo, hi;
    if (!assumed && ps_config_default_range (k->path, &lo, &hi))
      assumed = g_strdup_printf ("the default's, [%g, %g], in the key table (a config that keeps the default gets "
                                 "it%s)", lo, hi, g_str_has_prefix (k->path, "switch.") ? " when it has a switch" : "");
    if (markdown)
      g_string_append_printf (out, "| `%s` | %s %s | `%s` | %s | %s%s%s |\n", k->path, cfg_type_name (k), range, dflt,
                              k->unit, k->doc, assumed ? ". Ranges: " : "", assumed ? assumed : "");
    else
      g_string_append_printf (out, "%-36s %-14s %-10s %-12s %s%s%s\n", k->path, cfg_type_name (k), dflt, k->unit, k->doc,
                              assumed ? "; " : "", assumed ? assumed : "");
  }
}
