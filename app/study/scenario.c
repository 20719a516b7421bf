/* scenario.c — scenario file -> PsScenario (axes, zip groups, overrides, metrics) and per-point configs.
 *
 * A scenario never fills a PsConfig itself: every override and axis value is written back as a "KEY=YAML" --set
 * string and handed to ps_config_load(), the path `pciesim CONFIG --set` takes. A point is therefore exactly a
 * config a user could run by hand, every check config.c makes applies to it, and the errors config.c raises
 * about a --set are moved afterwards onto the scenario node that wrote the value (relocate()). Ranges become
 * value nodes while loading, so everything after loading sees only lists of scalars.
 */
#include "app/study/scenario.h"

#include <math.h>
#include <string.h>

#include "app/base/error.h"
#include "app/config/load.h"

/* The keys each mapping may have, for check_keys() and its did-you-mean. `description:` is free text for people:
 * it is checked to be a scalar and otherwise ignored. */
static const char *const top_keys[] = { "name", "description", "base", "overrides", "modes",
                                        "axes", "zip", "metrics", NULL };
static const char *const axis_keys[] = { "key", "values", "range", NULL };
static const char *const range_keys[] = { "from", "to", "step", "scale", NULL };

/* Suggestions compare whole dotted paths, so a typo in the section (`endpiont.tags`) is caught as well as one in
 * the leaf. */
static void
unknown_config_key (GError **error, const YNode *at, const char *what, const char *path)
{
  const char *hint = ps_closest (ps_config_keys (), path, 3);
  if (hint)
    ytree_error (error, PS_ERROR_DATA, at, "%s '%s' is not a config key (did you mean '%s'?)", what, path, hint);
  else
    ytree_error (error, PS_ERROR_DATA, at, "%s '%s' is not a config key (see pciesim keys)", what, path);
}

/* Every key of `map` must be one of `allowed`. Stops at the first stranger: a GError carries one message, and
 * the first in file order is the one to fix first. */
static gboolean
check_keys (const YNode *map, const char *const *allowed, const char *where, GError **error)
{
  for (guint i = 0; i < map->keys->len; i++) {
    const YNode *k = map->keys->pdata[i];
    if (g_strv_contains (allowed, k->value))
      continue;
    const char *hint = ps_closest (allowed, k->value, 3);
    if (hint)
      ytree_error (error, PS_ERROR_DATA, k, "unknown key '%s' in %s (did you mean '%s'?)", k->value, where, hint);
    else
      ytree_error (error, PS_ERROR_DATA, k, "unknown key '%s' in %s", k->value, where);
    return FALSE;
  }
  return TRUE;
}

/* Scenario files are as strict as configs: a list where a mapping belongs is an error at that node, never
 * silently read as something else. */
static gboolean
want_kind (const YNode *n, YNodeKind kind, const char *what, GError **error)
{
  if (n->kind == kind)
    return TRUE;
  ytree_error (error, PS_ERROR_DATA, n, "%s must be %s, not %s", what, ytree_kind_name (kind),
               ytree_kind_name (n->kind));
  return FALSE;
}

/* --- YAML text of a node, for --set values ---------------------------------------------------------------- */

/* Quoted scalars stay quoted: config.c takes only plain scalars as numbers or booleans, and a value must mean
 * the same on an axis as in a config file. */
static void
emit_yaml (GString *o, const YNode *n)
{
  switch (n->kind) {
  case YNODE_SCALAR:
    if (n->plain) {
      g_string_append (o, n->value);
      break;
    }
    /* Escaped control characters: a raw line break inside double quotes would be folded into a space. */
    g_string_append_c (o, '"');
    for (const unsigned char *p = (const unsigned char *) n->value; *p; p++) {
      if (*p < 0x20)
        g_string_append_printf (o, "\\x%02x", *p);
      else if (*p == '"' || *p == '\\')
        g_string_append_printf (o, "\\%c", *p);
      else
        g_string_append_c (o, (char) *p);
    }
    g_string_append_c (o, '"');
    break;
  /* Sequences and mappings in flow style, so a whole value stays on one line as a --set string must, e.g.
   * benchmark.modes=[read, write]. */
  case YNODE_SEQ:
    g_string_append_c (o, '[');
    for (guint i = 0; i < n->items->len; i++) {
      if (i)
        g_string_append (o, ", ");
      emit_yaml (o, n->items->pdata[i]);
    }
    g_string_append_c (o, ']');
    break;
  /* A mapping reaches here only inside an override's value, and no config key takes one: writing it out lets
   * config.c reject it with its usual type error, which relocate() then places on the override. */
  case YNODE_MAP:
    g_string_append_c (o, '{');
    for (guint i = 0; i < n->keys->len; i++) {
      g_string_append_printf (o, "%s%s: ", i ? ", " : "", ((YNode *) n->keys->pdata[i])->value);
      emit_yaml (o, n->items->pdata[i]);
    }
    g_string_append_c (o, '}');
    break;
  }
}

/* Points reach the config loader as --set strings, the one override path config.c already validates and
 * locates; an error in one says which (ps_error_set_index()), and relocate() puts it on the node that wrote it. */
static char *
set_string (const char *key, const YNode *value)
{
  GString *o = g_string_new (key);
  g_string_append_c (o, '=');
  emit_yaml (o, value);
  return g_string_free (o, FALSE);
}

/* --- overrides ------------------------------------------------------------------------------------------- */

/* `overrides:` may nest sections or use dotted paths; both flatten to one --set per key. */
static gboolean
flatten_overrides (PsScenario *s, const YNode *map, const char *prefix, GError **error)
{
  for (guint i = 0; i < map->keys->len; i++) {
    const YNode *k = map->keys->pdata[i], *v = map->items->pdata[i];
    g_autofree char *path = *prefix ? g_strconcat (prefix, ".", k->value, NULL) : g_strdup (k->value);
    /* sets and set_nodes grow together: relocate() takes set_nodes[i] as the node that wrote sets[i]. */
    /* nodes.NAME.KEY, links.NAME.KEY, flows.NAME.KEY: one element of a fabric, checked by each point's load
     * (config.h); the parts above the key nest like sections. */
    gboolean element = ps_config_is_element_set (path)
                       || g_strv_contains ((const char *const[]) { "nodes", "links", "flows", NULL }, path);
    g_auto (GStrv) parts = g_strsplit (path, ".", -1);
    if (ps_config_key_exists (path) || (element && g_strv_length (parts) >= 3 && v->kind != YNODE_MAP)) {
      g_ptr_array_add (s->sets, set_string (path, v));
      g_ptr_array_add (s->set_nodes, (gpointer) v);
    } else if (ps_config_is_section (path) || (element && v->kind == YNODE_MAP)) {
      /* A section given a scalar (`endpoint: 8`) is an error at that value, not a key to set. */
      if (!want_kind (v, YNODE_MAP, path, error) || !flatten_overrides (s, v, path, error))
        return FALSE;
    } else {
      unknown_config_key (error, k, "override", path);
      return FALSE;
    }
  }
  return TRUE;
}

/* --- axes ------------------------------------------------------------------------------------------------ */

/* An axis keeps its values as YNode scalars located where they were written (a range's at the range), not as
 * bare strings: whatever later goes wrong with a value, the error can point into the file. */

/* Only plain scalars: a quoted "8" is a string in a config, so it is not a number in a range either. The whole
 * text must parse, and isfinite() turns away the inf and nan that strtod accepts; g_ascii_strtod reads the same
 * in every locale. */
static gboolean
number_of (const YNode *n, const char *what, double *out, GError **error)
{
  char *end = NULL;
  if (n->kind == YNODE_SCALAR && n->plain) {
    *out = g_ascii_strtod (n->value, &end);
    if (end != n->value && *end == '\0' && isfinite (*out))
      return TRUE;
  }
  ytree_error (error, PS_ERROR_DATA, n, "%s must be a number", what);
  return FALSE;
}

/* Integral values print as integers so that `1024` on an axis and `1024` from a range are the same text. The
 * text matters beyond the config: it is the axis value every output row and every error message shows. */
static char *
number_text (double v)
{
  if (v == floor (v) && fabs (v) < 9007199254740992.0)
    return g_strdup_printf ("%.0f", v);
  /* Twelve significant digits: more than any step a person writes, few enough to hide binary noise, so from 0 in
   * steps of 0.1 prints 0.3 and not 0.30000000000000004. */
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.12g", v));
}

/* A range becomes explicit value nodes, all located at the range, so the rest of the code (and the errors)
 * never distinguishes ranges from lists. */
static gboolean
expand_range (PsAxis *a, const YNode *r, GError **error)
{
  if (!want_kind (r, YNODE_MAP, "range", error) || !check_keys (r, range_keys, "range", error))
    return FALSE;
  const YNode *from_n = ytree_map_get (r, "from"), *to_n = ytree_map_get (r, "to");
  const YNode *step_n = ytree_map_get (r, "step"), *scale_n = ytree_map_get (r, "scale");
  if (!from_n || !to_n) {
    ytree_error (error, PS_ERROR_DATA, r, "range needs from: and to:");
    return FALSE;
  }
  double from, to, step = 1;
  if (!number_of (from_n, "range from", &from, error) || !number_of (to_n, "range to", &to, error))
    return FALSE;
  gboolean pow2 = FALSE;
  if (scale_n) {
    if (scale_n->kind != YNODE_SCALAR || (strcmp (scale_n->value, "linear") && strcmp (scale_n->value, "pow2"))) {
      ytree_error (error, PS_ERROR_DATA, scale_n, "range scale must be linear or pow2");
      return FALSE;
    }
    pow2 = strcmp (scale_n->value, "pow2") == 0;
  }
  if (step_n && pow2) {
    ytree_error (error, PS_ERROR_DATA, step_n, "a pow2 range doubles each value: it takes no step");
    return FALSE;
  }
  if (step_n && !number_of (step_n, "range step", &step, error))
    return FALSE;
  /* A pow2 range must start above 0: doubling 0 stays 0 for ever, and a negative start doubles away from `to`. */
  if (to < from || step <= 0 || (pow2 && from <= 0)) {
    ytree_error (error, PS_ERROR_DATA, r, "%s", to < from ? "range to is below from"
                                              : step <= 0 ? "range step must be positive"
                                                          : "a pow2 range must start above 0");
    return FALSE;
  }
  /* Counted before generating, so a range of a billion values fails fast instead of filling memory. */
  /* The epsilon keeps `to` itself in the range when (to - from) / step is an integer computed inexactly. */
  double count = pow2 ? floor (log2 (to / from) + 1e-9) + 1 : floor ((to - from) / step + 1e-9) + 1;
  if (count > PS_SCENARIO_MAX_POINTS) {
    ytree_error (error, PS_ERROR_DATA, r, "range has %.0f values, more than the %u a sweep may have", count,
                 PS_SCENARIO_MAX_POINTS);
    return FALSE;
  }
  /* from + step * i rather than a running sum, so a long range accumulates no rounding drift. ldexp() only
   * changes the exponent, so every pow2 value is exact. The cast of count is safe: it was bounded just above. */
  for (guint i = 0; i < (guint) count; i++) {
    double v = pow2 ? from * ldexp (1.0, (int) i) : from + step * i;
    g_autofree char *text = number_text (v);
    /* ytree_scalar_new() makes plain scalars, so config.c reads a generated value as the number it is. */
    g_ptr_array_add (a->values, ytree_scalar_new (r->origin, r->line, r->col, text));
  }
  return TRUE;
}

static void
axis_free (gpointer p)
{
  PsAxis *a = p;
  g_free (a->key);
  g_ptr_array_unref (a->values);
  g_free (a);
}

/* One `axes:` entry: {key, values} or {key, range}. Checks that need only the axis happen here; values are
 * checked against the key's range when the points' configs load. */
static gboolean
load_axis (PsScenario *s, const YNode *entry, GError **error)
{
  if (!want_kind (entry, YNODE_MAP, "an axis", error) || !check_keys (entry, axis_keys, "an axis", error))
    return FALSE;
  const YNode *key = ytree_map_get (entry, "key"), *values = ytree_map_get (entry, "values"),
              *range = ytree_map_get (entry, "range");
  if (!key || !want_kind (key, YNODE_SCALAR, "an axis key", error)) {
    if (!key)
      ytree_error (error, PS_ERROR_DATA, entry, "an axis needs key: (a config key such as endpoint.tags)");
    return FALSE;
  }
  /* Checked here rather than left to the points' config loads, so a misspelt key is an error at the axis key with
   * a did-you-mean, not a config load failure blamed on one of its values. */
  if (!ps_config_key_exists (key->value) && !ps_config_is_element_set (key->value)) {
    unknown_config_key (error, key, "axis key", key->value);
    return FALSE;
  }
  /* Modes are chosen once per scenario (they decide the columns); published figures never feed a model. */
  if (strcmp (key->value, "benchmark.modes") == 0 || strcmp (key->value, "name") == 0 ||
      g_str_has_prefix (key->value, "published.")) {
    ytree_error (error, PS_ERROR_DATA, key, "'%s' cannot be an axis%s", key->value,
                 strcmp (key->value, "benchmark.modes") == 0 ? " (use the scenario's modes: key)" : "");
    return FALSE;
  }
  /* The same key twice would not be an error to config.c: the later axis's --set would silently win at every
   * point, and the earlier axis would only multiply identical runs. */
  for (guint i = 0; i < s->axes->len; i++)
    if (strcmp (((PsAxis *) s->axes->pdata[i])->key, key->value) == 0) {
      ytree_error (error, PS_ERROR_DATA, key, "axis '%s' is given twice", key->value);
      return FALSE;
    }
  /* Both at once would be ambiguous: refused rather than silently preferring one. */
  if (!values == !range) {
    ytree_error (error, PS_ERROR_DATA, entry, "axis '%s' needs either values: or range:", key->value);
    return FALSE;
  }
  PsAxis *a = g_new0 (PsAxis, 1);
  a->key = g_strdup (key->value);
  a->values = g_ptr_array_new_with_free_func ((GDestroyNotify) ytree_free);
  a->at = entry;
  a->group = -1;
  /* Owned by the scenario before its values are read, so a failing check below cannot leak it. */
  g_ptr_array_add (s->axes, a);
  if (range)
    return expand_range (a, range, error);
  if (!want_kind (values, YNODE_SEQ, "values", error))
    return FALSE;
  if (values->items->len == 0) {
    ytree_error (error, PS_ERROR_DATA, values, "axis '%s' lists no values", a->key);
    return FALSE;
  }
  for (guint i = 0; i < values->items->len; i++) {
    const YNode *v = values->items->pdata[i];
    /* One value is one CSV cell and one line of output: no nesting, no line breaks. */
    if (!want_kind (v, YNODE_SCALAR, "an axis value", error))
      return FALSE;
    if (strpbrk (v->value, "\n\r")) {
      ytree_error (error, PS_ERROR_DATA, v, "an axis value must fit on one line");
      return FALSE;
    }
    /* Copied so the array owns each of its nodes, like those expand_range() creates, and frees them alike. */
    g_ptr_array_add (a->values, ytree_copy (v));
  }
  return TRUE;
}

/* zip: names axes by their key, the only name an axis has. */
static PsAxis *
axis_named (const PsScenario *s, const char *key)
{
  for (guint i = 0; i < s->axes->len; i++)
    if (strcmp (((PsAxis *) s->axes->pdata[i])->key, key) == 0)
      return s->axes->pdata[i];
  return NULL;
}

/* `zip: [a, b]` is one group; `zip: [[a, b], [c, d]]` several. Group numbers are then given in axis order so
 * that the point order depends only on where the axes are written. */
static gboolean
load_zip (PsScenario *s, const YNode *zip, GError **error)
{
  if (zip && !want_kind (zip, YNODE_SEQ, "zip", error))
    return FALSE;
  /* The common case, one pair, reads best without the extra brackets; the first item decides the form. An empty
   * `zip: []` has no first item and zips nothing. */
  gboolean flat = zip && zip->items->len && ((YNode *) zip->items->pdata[0])->kind == YNODE_SCALAR;
  guint n_lists = !zip ? 0 : flat ? 1 : zip->items->len;
  g_autofree int *tag = g_new0 (int, s->axes->len + 1); /* per axis: 0 alone, else zip list number + 1 */
  for (guint g = 0; g < n_lists; g++) {
    const YNode *list = flat ? zip : zip->items->pdata[g];
    if (!want_kind (list, YNODE_SEQ, "a zip group", error))
      return FALSE;
    if (list->items->len < 2) {
      ytree_error (error, PS_ERROR_DATA, list, "a zip group pairs at least two axes");
      return FALSE;
    }
    guint len0 = 0;
    for (guint i = 0; i < list->items->len; i++) {
      const YNode *name = list->items->pdata[i];
      if (!want_kind (name, YNODE_SCALAR, "a zipped axis", error))
        return FALSE;
      PsAxis *a = axis_named (s, name->value);
      if (!a) {
        ytree_error (error, PS_ERROR_DATA, name, "zip names '%s', which is not an axis", name->value);
        return FALSE;
      }
      /* Terminates: axis_named() found `a` among the axes. */
      guint ai = 0;
      while (s->axes->pdata[ai] != a)
        ai++;
      /* Two groups sharing an axis would have to advance together: that is one group, written twice. */
      if (tag[ai]) {
        ytree_error (error, PS_ERROR_DATA, name, "axis '%s' is zipped twice", name->value);
        return FALSE;
      }
      tag[ai] = (int) g + 1;
      if (i == 0)
        len0 = a->values->len;
      else if (a->values->len != len0) {
        ytree_error (error, PS_ERROR_DATA, name, "zipped axes must have as many values: '%s' has %u, '%s' has %u",
                     name->value, a->values->len, ((YNode *) list->items->pdata[0])->value, len0);
        return FALSE;
      }
    }
  }
  g_autofree int *group_of_list = g_new (int, n_lists + 1);
  for (guint g = 0; g <= n_lists; g++)
    group_of_list[g] = -1;
  /* Only a group's first axis multiplies the point count; checked at each step so it cannot overflow. */
  guint64 points = 1;
  for (guint i = 0; i < s->axes->len; i++) {
    PsAxis *a = s->axes->pdata[i];
    if (tag[i] && group_of_list[tag[i]] >= 0) {
      a->group = group_of_list[tag[i]];
      continue;
    }
    a->group = (int) s->n_groups++;
    if (tag[i])
      group_of_list[tag[i]] = a->group;
    points *= a->values->len;
    if (points > PS_SCENARIO_MAX_POINTS) {
      ytree_error (error, PS_ERROR_DATA, a->at, "the axes make more than %u points", PS_SCENARIO_MAX_POINTS);
      return FALSE;
    }
  }
  /* Fits: points never exceeds PS_SCENARIO_MAX_POINTS, which is far below G_MAXUINT. */
  s->n_points = (guint) points;
  return TRUE;
}

/* --- metrics --------------------------------------------------------------------------------------------- */

/* A metric of a mode the scenario does not run would be an always-empty column: refuse it at its node. */
static gboolean
load_metrics (PsScenario *s, const YNode *list, const PsConfig *base, GError **error)
{
  if (!want_kind (list, YNODE_SEQ, "metrics", error))
    return FALSE;
  /* The list's order is kept: it is the order of the output columns. */
  for (guint i = 0; i < list->items->len; i++) {
    const YNode *n = list->items->pdata[i];
    PsMetric own;
    if (!ps_metric_resolve (n, base, s->modes, "this scenario", &own, error))
      return FALSE;
    const PsMetric *m = &own;
    /* A metric listed twice would give two CSV columns of one name, which readers rename or reject, and a JSON
     * object with a duplicate key. */
    for (guint j = 0; j < s->metrics->len; j++)
      if (strcmp (g_array_index (s->metrics, PsMetric, j).name, n->value) == 0) {
        ytree_error (error, PS_ERROR_DATA, n, "metric '%s' is listed twice", n->value);
        return FALSE;
      }
    ps_metric_add (s->metrics, m);
    s->ranges |= m->kind == PS_METRIC_RANGE;
  }
  /* `metrics: []` is refused rather than read as "the defaults": a sweep that records nothing is a mistake. */
  if (s->metrics->len == 0) {
    ytree_error (error, PS_ERROR_DATA, list, "metrics lists nothing to record");
    return FALSE;
  }
  return TRUE;
}

/* --- errors of one point --------------------------------------------------------------------------------- */

/* A point's config is loaded from --set strings, so config.c's errors name a "--set KEY=VALUE" origin the user
 * never typed; the functions below move such errors back onto lines of the scenario file. They read the error's
 * parts (error.h: its text, location and the index of the --set it lies in), never its message. */

/* An error from loading or running point `index` (or the base when index is G_MAXUINT), moved to the scenario:
 * onto the override or axis value that caused it when it lies in one of our --set strings, else onto the
 * `axes:` entry with the point's values spelled out. Errors in the base file itself keep their location. */
static GError *
relocate (const PsScenario *s, guint index, char **sets, const YNode *const *nodes, GError *e)
{
  g_autofree char *loc = ps_error_location (e);
  const char *text = ps_error_text (e);
  /* The point's axis values spelled out, so a message names the point without the reader decoding its id.
   * Messages number points from 1, as the id column of the sweep output does. */
  /* Axis values are scalars (load_axis() refuses anything else, ranges make scalars), so ->value is their text. */
  g_autoptr (GString) values = g_string_new (NULL);
  for (guint a = 0; index != G_MAXUINT && a < s->axes->len; a++)
    g_string_append_printf (values, "%s%s=%s", a ? ", " : "", ((PsAxis *) s->axes->pdata[a])->key,
                            nodes[s->sets->len + a]->value);
  GError *out = NULL;
  /* config.c says which of our --sets the error lies in (the later of two identical ones, whose value stood). */
  int i = ps_error_set_index (e);
  /* A command-line --set has no scenario node: its error keeps the --set location the user typed. */
  if (i >= 0 && i < (int) g_strv_length (sets) && !nodes[i])
    return e;
  if (i >= 0 && i < (int) g_strv_length (sets)) {
    const YNode *n = nodes[i];
    /* Positions below s->sets->len are overrides, the rest axis values, in the order point_sets() builds. An
     * override can be wrong only in combination with a point's values (checked once without them). */
    if ((guint) i < s->sets->len && index != G_MAXUINT)
      ytree_error (&out, e->code, n, "override, at point %u (%s): %s", index + 1, values->str, text);
    else if ((guint) i < s->sets->len)
      ytree_error (&out, e->code, n, "override: %s", text);
    else
      ytree_error (&out, e->code, n, "axis %s = %s (point %u): %s",
                   ((PsAxis *) s->axes->pdata[(guint) i - s->sets->len])->key, n->value, index + 1, text);
    g_error_free (e);
    return out;
  }
  /* Without a point, an error that is not an override's lies in the base file and already says where. */
  if (index == G_MAXUINT)
    return e;
  /* Otherwise no single node is to blame (a combination check, a model rejecting the mix): point at the
   * axes and spell the point out. A location other than ours (the base or an included file) is kept inside the
   * message, so the line it names can still be found. */
  const YNode *axes = ytree_map_get (s->tree, "axes");
  ytree_error (&out, e->code, axes, "point %u (%s): %s%s%s", index + 1, values->str, loc ? loc : "", loc ? ": " : "",
               text);
  g_error_free (e);
  return out;
}

void
ps_scenario_point_coords (const PsScenario *s, guint index, guint *value_index)
{
  /* Mixed radix over the groups, last group fastest; every axis of a group shares its digit. An index past
   * n_points would wrap round to a valid but wrong point, so callers keep to 0..n_points-1. */
  g_autofree guint *digit = g_new0 (guint, s->n_groups + 1);
  guint rest = index;
  for (int g = (int) s->n_groups - 1; g >= 0; g--) {
    /* A group's radix is the length of any of its axes: zip made them equal. Searching for it per point costs
     * groups x axes comparisons, nothing beside a simulation, and keeps PsScenario free of derived tables. */
    guint radix = 1;
    for (guint a = 0; a < s->axes->len; a++)
      if (((PsAxis *) s->axes->pdata[a])->group == g) {
        radix = ((PsAxis *) s->axes->pdata[a])->values->len;
        break;
      }
    digit[g] = rest % radix;
    rest /= radix;
  }
  for (guint a = 0; a < s->axes->len; a++)
    value_index[a] = digit[((PsAxis *) s->axes->pdata[a])->group];
}

/* The sets of a point and, parallel to them, the nodes that wrote each. Overrides first, then axis values:
 * config.c applies --set in order, so a point's own value wins over an override of the same key. */
static char **
point_sets (const PsScenario *s, guint index, const YNode ***nodes)
{
  /* The overrides are copied too, so the whole list is one GStrv the caller frees at once. */
  guint n = s->sets->len + s->axes->len;
  char **sets = g_new0 (char *, n + 1);
  *nodes = g_new0 (const YNode *, n + 1);
  for (guint i = 0; i < s->sets->len; i++) {
    sets[i] = g_strdup (s->sets->pdata[i]);
    (*nodes)[i] = s->set_nodes->pdata[i];
  }
  g_autofree guint *vi = g_new0 (guint, s->axes->len + 1);
  ps_scenario_point_coords (s, index, vi);
  for (guint a = 0; a < s->axes->len; a++) {
    const PsAxis *ax = s->axes->pdata[a];
    const YNode *v = ax->values->pdata[vi[a]];
    sets[s->sets->len + a] = set_string (ax->key, v);
    (*nodes)[s->sets->len + a] = v;
  }
  return sets;
}

char **
ps_scenario_point_sets (const PsScenario *s, guint index)
{
  g_autofree const YNode **nodes = NULL;
  return point_sets (s, index, &nodes);
}

/* The point's sets are rebuilt to recognise which one an error names; errors are rare, so nothing is cached. */
void
ps_scenario_locate_error (const PsScenario *s, guint index, GError **error)
{
  if (!error || !*error)
    return;
  g_autofree const YNode **nodes = NULL;
  g_auto (GStrv) sets = point_sets (s, index, &nodes);
  *error = relocate (s, index, sets, nodes, *error);
}

/* The whole config is loaded per point (under a millisecond, against milliseconds of simulation): the loader's
 * include, --set and combination checks then hold for every point exactly as for a hand-written config. */
PsConfig *
ps_scenario_point_config (const PsScenario *s, guint index, GError **error)
{
  g_autofree const YNode **nodes = NULL;
  g_auto (GStrv) sets = point_sets (s, index, &nodes);
  GError *e = NULL;
  PsConfig *cfg = ps_config_load (s->base, (const char *const *) sets, &e);
  /* relocate() consumes `e`: it returns either `e` itself or the relocated error that replaces it. */
  if (!cfg)
    g_propagate_error (error, relocate (s, index, sets, nodes, e));
  return cfg;
}

/* --- loading --------------------------------------------------------------------------------------------- */

/* Loading checks everything that needs no point's config. What is left are errors of particular values and
 * combinations, which a sweep finds by loading every point's config before it runs any. */

static gboolean
load_modes (PsScenario *s, const YNode *n, GError **error)
{
  /* One word or a list, as benchmark.modes accepts; the words' bits are OR-ed, so [read, all] simply means all.
   * An empty list is refused: it would run nothing at every point. */
  guint count = n->kind == YNODE_SEQ ? n->items->len : 1;
  if (n->kind == YNODE_MAP || count == 0) {
    ytree_error (error, PS_ERROR_DATA, n, "modes must be a mode or a list of modes (read, write, simultaneous, all)");
    return FALSE;
  }
  for (guint i = 0; i < count; i++) {
    const YNode *one = n->kind == YNODE_SEQ ? n->items->pdata[i] : n;
    unsigned m = one->kind == YNODE_SCALAR ? ps_mode_parse (one->value) : 0;
    if (!m) {
      ytree_error (error, PS_ERROR_DATA, one, "unknown mode (expected read, write, simultaneous or all)");
      return FALSE;
    }
    s->modes |= m;
  }
  return TRUE;
}

/* Relative to the scenario, like a config's include:, so scenarios run from any working directory. Tested here
 * so a missing base is reported at the base: line where the wrong path was written (exit 66), not by the
 * config loader, which knows only the path. */
static gboolean
load_base (PsScenario *s, const YNode *base, GError **error)
{
  if (!want_kind (base, YNODE_SCALAR, "base", error))
    return FALSE;
  g_autofree char *dir = g_path_get_dirname (s->path);
  s->base = g_path_is_absolute (base->value) ? g_strdup (base->value) : g_build_filename (dir, base->value, NULL);
  /* A directory named as base gets a message that says so, not a read error from the loader. */
  if (!g_file_test (s->base, G_FILE_TEST_IS_REGULAR)) {
    ytree_error (error, PS_ERROR_NOINPUT, base, "base config '%s' %s", s->base,
                 g_file_test (s->base, G_FILE_TEST_EXISTS) ? "is not a regular file" : "does not exist");
    return FALSE;
  }
  return TRUE;
}

/* Order matters for the messages: the file's own shape first, then the base and overrides, then modes and
 * metrics, which depend on the base's benchmark.modes. */
static gboolean
load_tree (PsScenario *s, const char *const *cli_sets, unsigned cli_modes, GError **error)
{
  const YNode *t = s->tree;
  /* A config named where a scenario belongs: its sections are not scenario keys, and "unknown key 'link'" would
   * not tell the user what happened. */
  for (guint i = 0; i < t->keys->len; i++) {
    const YNode *k = t->keys->pdata[i];
    if (!g_strv_contains (top_keys, k->value) && ps_config_is_section (k->value)) {
      ytree_error (error, PS_ERROR_DATA, k, "this is a config file ('%s:' is a config section, not a scenario key): "
                   "run it with pciesim %s", k->value, s->path);
      return FALSE;
    }
  }
  /* Unknown keys first: a misspelt `axis:` should be reported as a typo, not as a missing axes:. */
  if (!check_keys (t, top_keys, "a scenario", error))
    return FALSE;
  const YNode *n;
  if ((n = ytree_map_get (t, "name")) && !want_kind (n, YNODE_SCALAR, "name", error))
    return FALSE;
  if (n)
    s->name = g_strdup (n->value);
  if ((n = ytree_map_get (t, "description")) && !want_kind (n, YNODE_SCALAR, "description", error))
    return FALSE;
  /* A missing key has no node of its own, so its error points at the mapping that lacks it. */
  if (!(n = ytree_map_get (t, "base"))) {
    ytree_error (error, PS_ERROR_DATA, t, "a scenario needs base: (the config every point starts from)");
    return FALSE;
  }
  if (!load_base (s, n, error))
    return FALSE;
  if ((n = ytree_map_get (t, "overrides")) &&
      (!want_kind (n, YNODE_MAP, "overrides", error) || !flatten_overrides (s, n, "", error)))
    return FALSE;
  /* The command line's --sets go after the file's overrides, so they win over them, and before the axis values,
   * which they may not name. */
  for (const char *const *c = cli_sets; c && *c; c++) {
    g_ptr_array_add (s->sets, g_strdup (*c));
    g_ptr_array_add (s->set_nodes, NULL);
    s->n_cli_sets++;
  }
  if (!(n = ytree_map_get (t, "axes"))) {
    ytree_error (error, PS_ERROR_DATA, t, "a scenario needs axes: (a list of {key, values or range})");
    return FALSE;
  }
  if (!want_kind (n, YNODE_SEQ, "axes", error))
    return FALSE;
  /* No axes would be a sweep of one point, the base itself, which `pciesim CONFIG` already runs. */
  if (n->items->len == 0) {
    ytree_error (error, PS_ERROR_DATA, n, "axes lists no axis");
    return FALSE;
  }
  for (guint i = 0; i < n->items->len; i++)
    if (!load_axis (s, n->items->pdata[i], error))
      return FALSE;
  /* A --set of an axis would be overridden at every point by the axis value: a mistake, not an override. */
  for (const char *const *c = cli_sets; c && *c; c++)
    for (guint a = 0; a < s->axes->len; a++) {
      const char *key = ((PsAxis *) s->axes->pdata[a])->key;
      size_t len = strlen (key);
      if (strncmp (*c, key, len) == 0 && (*c)[len] == '=') {
        ps_error_plain (error, PS_ERROR_USAGE, "--set %s: %s is an axis of this scenario (its values are the "
                        "axis's)", *c, key);
        return FALSE;
      }
    }
  /* zip: comes after every axis, since it names axes by key and may name any of them. Without zip: each axis
   * is its own group, and load_zip() still numbers the groups and counts the points. */
  if (!load_zip (s, ytree_map_get (t, "zip"), error))
    return FALSE;

  /* The base with overrides but no axis value: its mistakes are every point's, so report them once here. The
   * arrays mirror point_sets() without the axes, and G_MAXUINT tells relocate() that there is no point. */
  g_autofree const YNode **nodes = g_new0 (const YNode *, s->sets->len + 1);
  g_auto (GStrv) sets = g_new0 (char *, s->sets->len + 1);
  for (guint i = 0; i < s->sets->len; i++) {
    sets[i] = g_strdup (s->sets->pdata[i]);
    nodes[i] = s->set_nodes->pdata[i];
  }
  GError *e = NULL;
  /* This config is a check and the source of the default modes; PsScenario keeps none, each point loads its own. */
  g_autoptr (PsConfig) base = ps_config_load (s->base, (const char *const *) sets, &e);
  if (!base) {
    g_propagate_error (error, relocate (s, G_MAXUINT, sets, nodes, e));
    return FALSE;
  }
  if ((n = ytree_map_get (t, "modes")) && !load_modes (s, n, error))
    return FALSE;
  /* Without modes:, the base's own benchmark.modes, so a scenario on a read-only config stays read-only; --mode
   * wins over both. */
  if (!n)
    s->modes = base->benchmark.modes;
  if (cli_modes)
    s->modes = cli_modes;
  if ((n = ytree_map_get (t, "metrics")))
    return load_metrics (s, n, base, error);
  ps_metric_defaults (s->metrics, base, s->modes);
  return TRUE;
}

PsScenario *
ps_scenario_load (const char *path, GError **error)
{
  return ps_scenario_load_with (path, NULL, 0, error);
}

PsScenario *
ps_scenario_load_with (const char *path, const char *const *sets, unsigned modes, GError **error)
{
  g_autoptr (PsScenario) s = g_new0 (PsScenario, 1);
  s->path = g_strdup (path);
  s->sets = g_ptr_array_new_with_free_func (g_free);
  s->set_nodes = g_ptr_array_new ();
  s->axes = g_ptr_array_new_with_free_func (axis_free);
  s->metrics = g_array_new (FALSE, TRUE, sizeof (PsMetric));
  /* Every array exists before the first check, so the g_autoptr cleanup can free a half-loaded scenario on any
   * error path. ytree returns NULL without an error for an empty document: reported here, at 1:1. */
  s->tree = ytree_load_file (path, error);
  if (!s->tree) {
    if (error && !*error)
      ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "empty file: a scenario is a mapping with base: and axes:");
    return NULL;
  }
  if (!want_kind (s->tree, YNODE_MAP, "a scenario", error) || !load_tree (s, sets, modes, error))
    return NULL;
  /* Without name:, the file name less its extension: scenarios/x.yaml is "x" in the progress line and in JSON. */
  if (!s->name) {
    g_autofree char *base = g_path_get_basename (path);
    char *dot = strrchr (base, '.');
    s->name = dot ? g_strndup (base, (gsize) (dot - base)) : g_strdup (base);
  }
  return g_steal_pointer (&s);
}

void
ps_scenario_free (PsScenario *s)
{
  if (!s)
    return;
  g_free (s->path);
  g_free (s->name);
  g_free (s->base);
  g_ptr_array_unref (s->sets);
  /* set_nodes only borrows nodes of the tree (no free function); the axes own copies of their values. */
  g_ptr_array_unref (s->set_nodes);
  g_ptr_array_unref (s->axes);
  for (guint i = 0; i < s->metrics->len; i++)
    g_free (g_array_index (s->metrics, PsMetric, i).name);
  g_array_unref (s->metrics);
  ytree_free (s->tree);
  g_free (s);
}
