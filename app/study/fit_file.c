/* fit_file.c — `pciesim fit`'s measurement file (fit.h's contract): its base config, its measurements with their
 * set: keys and uncertainties, its parameters, every refusal located at its node. */
#include "app/study/fit_impl.h"

#include <math.h>
#include <string.h>

#include "app/base/error.h"
#include "app/base/format.h"
#include "app/config/load.h"
#include "app/run/builder.h"

void
fit_measurement_clear (gpointer data)
{
  Measurement *m = data;
  g_strfreev (m->sets);
  g_free (m->label);
  if (m->set_nodes)
    g_ptr_array_unref (m->set_nodes);
}


/* A scalar's YAML text for a --set: quoted scalars stay quoted, so a value means what it means in a file. */
static char *
yaml_text (const YNode *v, const char *key, GError **error)
{
  if (v->kind == YNODE_SCALAR)
    return v->plain ? g_strdup (v->value) : g_strdup_printf ("'%s'", v->value);
  if (v->kind == YNODE_SEQ) {
    GString *s = g_string_new ("[");
    for (guint i = 0; i < v->items->len; i++) {
      g_autofree char *t = yaml_text (v->items->pdata[i], key, error);
      if (!t) {
        g_string_free (s, TRUE);
        return NULL;
      }
      g_string_append_printf (s, "%s%s", i ? ", " : "", t);
    }
    g_string_append (s, "]");
    return g_string_free (s, FALSE);
  }
  ytree_error (error, PS_ERROR_DATA, v, "set: the value of %s must be a scalar or a list", key);
  return NULL;
}

/* set: {a.b: 1, c: {d: 2}} -> "a.b=1", "c.d=2", with each one's key node in `nodes`. Every key --set takes is
 * taken (a fabric's flows.NAME.* and nodes.NAME.* included): the loader checks them as it checks --set, and
 * load_at() puts its error on the measurement. */
static gboolean
flatten_set (const YNode *map, const char *prefix, GPtrArray *out, GPtrArray *nodes, GError **error)
{
  for (guint i = 0; i < map->keys->len; i++) {
    const YNode *kn = map->keys->pdata[i], *vn = map->items->pdata[i];
    g_autofree char *path = *prefix ? g_strconcat (prefix, ".", kn->value, NULL) : g_strdup (kn->value);
    if (vn->kind == YNODE_MAP && !ps_config_key_exists (path)) {
      if (!flatten_set (vn, path, out, nodes, error))
        return FALSE;
      continue;
    }
    g_autofree char *text = yaml_text (vn, path, error);
    if (!text)
      return FALSE;
    g_ptr_array_add (out, g_strdup_printf ("%s=%s", path, text));
    g_ptr_array_add (nodes, (gpointer) kn);
  }
  return TRUE;
}

/* The number a scalar holds, NAN when it holds none. */
static double
scalar_number (const YNode *vn)
{
  char *end = NULL;
  double v = vn->kind == YNODE_SCALAR && vn->plain ? g_ascii_strtod (vn->value, &end) : NAN;
  return end && end != vn->value && !*end ? v : NAN;
}

/* A config load's error, when it lies in one of the measurement's --sets, is moved onto the measurement. */
PsConfig *
fit_load_at (const char *path, const char *const *sets, const YNode *at, GError **error)
{
  g_autoptr (GError) e = NULL;
  PsConfig *cfg = ps_config_load (path, sets, &e);
  if (cfg)
    return cfg;
  const char *file = ps_error_file (e);
  if (at && file && g_str_has_prefix (file, "--set "))
    ytree_error (error, (PsErrorCode) e->code, at, "%s: %s", file + strlen ("--set "), ps_error_text (e));
  else
    g_propagate_error (error, g_steal_pointer (&e));
  return NULL;
}

static gboolean
load_measurement (Fit *f, const YNode *n, GError **error)
{
  if (n->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, n, "a measurement must be a mapping: {set: {...}, METRIC: VALUE}");
    return FALSE;
  }
  Measurement m = { .at = n };
  g_autoptr (GPtrArray) sets = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  for (guint i = 0; i < n->keys->len; i++) {
    const YNode *kn = n->keys->pdata[i], *vn = n->items->pdata[i];
    if (strcmp (kn->value, "set") == 0) {
      if (vn->kind != YNODE_MAP) {
        ytree_error (error, PS_ERROR_DATA, vn, "set: must be a mapping of config keys");
        return FALSE;
      }
      if (!flatten_set (vn, "", sets, nodes, error))
        return FALSE;
      continue;
    }
    if (strcmp (kn->value, "uncertainty_pct") == 0) {
      /* How far the measurement itself may be off, in per cent of it: what "the fit explains it" means. */
      m.uncertainty_pct = scalar_number (vn);
      m.has_uncertainty = TRUE;
      if (!(m.uncertainty_pct >= 0 && m.uncertainty_pct < 100)) {
        ytree_error (error, PS_ERROR_DATA, vn, "uncertainty_pct: must be a number of per cent in [0, 100)");
        return FALSE;
      }
      continue;
    }
    if (m.metric_node) {
      ytree_error (error, PS_ERROR_DATA, kn, "a measurement gives one metric; '%s' is a second (after '%s')",
                   kn->value, m.metric_node->value);
      return FALSE;
    }
    m.metric_node = kn;
    m.value_node = vn;
    m.measured = scalar_number (vn);
    /* Relative errors need a non-zero figure; no metric of a run is negative; and a value no run could give
     * (1e300 MB/s or ns) is a typing slip, not data. */
    if (!isfinite (m.measured) || m.measured <= 0 || m.measured > 1e12) {
      ytree_error (error, PS_ERROR_DATA, vn, "%s: the measured value must be a positive number (at most 1e12)%s",
                   kn->value, isfinite (m.measured) && m.measured < 0 ? ", not negative"
                               : m.measured == 0 ? ", not zero: a fit compares relative errors" : "");
      return FALSE;
    }
  }
  if (!m.metric_node) {
    ytree_error (error, PS_ERROR_DATA, n, "a measurement names no metric (METRIC: VALUE beside set:)");
    return FALSE;
  }
  g_ptr_array_add (sets, NULL);
  m.sets = (char **) g_ptr_array_steal (sets, NULL);
  m.set_nodes = g_ptr_array_ref (nodes);
  /* The metric must be one this measurement's config produces: checked against that config, sets applied. */
  g_autoptr (PsConfig) cfg = fit_load_at (f->base->path, (const char *const *) m.sets, n, error);
  if (!cfg || !ps_metric_resolve (m.metric_node, cfg, cfg->benchmark.modes, "the measurement's config", &m.metric,
                                  error)) {
    fit_measurement_clear (&m);
    return FALSE;
  }
  /* A fit compares numbers: a verdict's text or an interval's end (--ranges' work, not a run's) is no measurement. */
  if (m.metric.kind == PS_METRIC_LIMITED_BY || m.metric.kind == PS_METRIC_RANGE) {
    ytree_error (error, PS_ERROR_DATA, m.metric_node, "metric '%s' cannot be measured: %s", m.metric_node->value,
                 m.metric.kind == PS_METRIC_LIMITED_BY ? "it is a verdict's text, not a number"
                                                      : "it is an end of --ranges' interval, not a run's figure");
    fit_measurement_clear (&m);
    return FALSE;
  }
  /* A mode's figure needs that mode's run alone: modes run on fresh engines and never move each other's figures
   * (builder.h), and a fit runs each measurement hundreds of times. */
  G_STATIC_ASSERT (PS_MODE_READ == 1u << PS_READ && PS_MODE_PIO_WRITE == 1u << PS_PIO_WRITE);
  m.modes = m.metric.mode >= 0 ? 1u << m.metric.mode : cfg->benchmark.modes;
  m.label = m.sets[0] ? g_strjoinv (" ", m.sets) : g_strdup ("(the base as it is)");
  g_array_append_val (f->m, m);
  return TRUE;
}

static gboolean same_sets (const Measurement *a, const Measurement *b);

/* What the measurements say together: a parameter the fit moves is not one a measurement fixes with its own set:
 * (the fit would override it, and the label would show a value that was not run); and one point measured twice
 * must agree within the two uncertainties, or the data contradict themselves before any fit. */
static gboolean
check_measurements (Fit *f, GError **error)
{
  for (guint i = 0; i < f->m->len; i++) {
    const Measurement *m = &g_array_index (f->m, Measurement, i);
    for (guint s = 0; m->sets[s]; s++)
      for (guint k = 0; k < f->p->len; k++) {
        const char *key = g_array_index (f->p, Parameter, k).a->key;
        size_t len = strlen (key);
        if (strncmp (m->sets[s], key, len) == 0 && m->sets[s][len] == '=') {
          const YNode *at = m->set_nodes->pdata[s];
          ytree_error (error, PS_ERROR_DATA, at, "set: fixes %s, a parameter of this fit: a "
                       "measurement made at a known value of it leaves it out of parameters:, or drops the set",
                       key);
          return FALSE;
        }
      }
    for (guint o = 0; o < i; o++) {
      const Measurement *p = &g_array_index (f->m, Measurement, o);
      if (strcmp (p->metric_node->value, m->metric_node->value) != 0 || !same_sets (p, m))
        continue;
      double gap_pct = fabs (m->measured - p->measured) / MIN (m->measured, p->measured) * 100;
      if (gap_pct > m->uncertainty_pct + p->uncertainty_pct) {
        ytree_error (error, PS_ERROR_DATA, m->value_node, "%s measured %g here and %g at line %d, %.3g%% apart, "
                     "beyond their uncertainties (uncertainty_pct %g and %g): the data contradict each other",
                     m->metric_node->value, m->measured, p->measured, p->value_node->line, gap_pct,
                     m->uncertainty_pct, p->uncertainty_pct);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* The same set: entries, in any order. */
static gboolean
same_sets (const Measurement *a, const Measurement *b)
{
  guint na = g_strv_length (a->sets), nb = g_strv_length (b->sets);
  if (na != nb)
    return FALSE;
  for (guint i = 0; i < na; i++)
    if (!g_strv_contains ((const char *const *) b->sets, a->sets[i]))
      return FALSE;
  return TRUE;
}

static const PsAssumption *
find_assumption (const PsConfig *cfg, const char *key)
{
  for (guint i = 0; i < cfg->n_assumptions; i++)
    if (strcmp (cfg->assumptions[i].key, key) == 0)
      return &cfg->assumptions[i];
  return NULL;
}

static void
add_parameter (Fit *f, const PsAssumption *a, const YNode *at)
{
  double v = a->value;
  Parameter p = { .a = a, .at = at, .file_value = v, .value = v, .integer = ps_config_key_integer (a->key) };
  g_array_append_val (f->p, p);
}

gboolean
fit_load_file (Fit *f, YNode *root, GError **error)
{
  if (root->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, root, "a fit file is a mapping: base:, parameters:, measurements:");
    return FALSE;
  }
  static const char *const known[] = { "base", "parameters", "measurements", NULL };
  for (guint i = 0; i < root->keys->len; i++) {
    const YNode *kn = root->keys->pdata[i];
    if (!g_strv_contains (known, kn->value)) {
      const char *hint = ps_closest (known, kn->value, 3);
      ytree_error (error, PS_ERROR_DATA, kn, "unknown key '%s'%s%s%s", kn->value, hint ? " (did you mean '" : "",
                   hint ? hint : "", hint ? "'?)" : "");
      return FALSE;
    }
  }
  const YNode *base = ytree_map_get (root, "base"), *params = ytree_map_get (root, "parameters"),
              *meas = ytree_map_get (root, "measurements");
  if (!base || base->kind != YNODE_SCALAR || !*base->value) {
    ytree_error (error, PS_ERROR_DATA, base ? base : root, "base: must name the config the measurements were made on");
    return FALSE;
  }
  g_autofree char *dir = g_path_get_dirname (f->opt->path);
  g_autofree char *path = g_path_is_absolute (base->value) ? g_strdup (base->value)
                                                             : g_build_filename (dir, base->value, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    ytree_error (error, PS_ERROR_NOINPUT, base, "base config '%s' %s", path,
                 g_file_test (path, G_FILE_TEST_IS_DIR) ? "is a directory, not a config file" : "does not exist");
    return FALSE;
  }
  /* A fit file (or a scenario) named as the base: say what it is, not what the config loader would guess. */
  g_autoptr (YNode) peek = ytree_load_file (path, NULL);
  if (peek && peek->kind == YNODE_MAP && ytree_map_get (peek, "measurements")) {
    ytree_error (error, PS_ERROR_DATA, base, "base '%s' is a fit file (it has measurements:), not a config: base: "
                 "names the config the measurements were made on", path);
    return FALSE;
  }
  if (!(f->base = ps_config_load (path, NULL, error)))
    return FALSE;
  if (!meas || meas->kind != YNODE_SEQ || meas->items->len == 0) {
    ytree_error (error, PS_ERROR_DATA, meas ? meas : root, "measurements: must list at least one measurement");
    return FALSE;
  }
  if (params && params->kind != YNODE_SEQ) {
    ytree_error (error, PS_ERROR_DATA, params, "parameters: must be a list of keys with a range");
    return FALSE;
  }
  for (guint i = 0; params && i < params->items->len; i++) {
    const YNode *n = params->items->pdata[i];
    const PsAssumption *a = n->kind == YNODE_SCALAR ? find_assumption (f->base, n->value) : NULL;
    if (!a) {
      /* Did you mean: among the keys this base can fit. */
      g_autofree const char **fittable = g_new0 (const char *, f->base->n_assumptions + 1);
      for (guint k = 0; k < f->base->n_assumptions; k++)
        fittable[k] = f->base->assumptions[k].key;
      const char *hint = n->kind == YNODE_SCALAR && !ps_config_key_exists (n->value)
                           ? ps_closest ((const char *const *) fittable, n->value, 4) : NULL;
      ytree_error (error, PS_ERROR_DATA, n, "parameter '%s' is not fittable: %s%s%s%s",
                   n->kind == YNODE_SCALAR ? n->value : "?", n->kind != YNODE_SCALAR ? "a parameter is a key"
                   : !ps_config_key_exists (n->value) ? "no such key"
                   : "the base gives it no range (a fit moves only assumptions, within their ranges)",
                   hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
      return FALSE;
    }
    for (guint k = 0; k < f->p->len; k++)
      if (g_array_index (f->p, Parameter, k).a == a) {
        ytree_error (error, PS_ERROR_DATA, n, "parameter '%s' is listed twice", n->value);
        return FALSE;
      }
    add_parameter (f, a, n);
  }
  if (!params)
    for (guint i = 0; i < f->base->n_assumptions; i++)
      add_parameter (f, &f->base->assumptions[i], NULL);
  if (f->p->len == 0) {
    ytree_error (error, PS_ERROR_DATA, params ? params : base, "nothing to fit: %s",
                 params ? "parameters: is empty" : "the base config has no assumption with a range");
    return FALSE;
  }
  for (guint i = 0; i < meas->items->len; i++)
    if (!load_measurement (f, meas->items->pdata[i], error))
      return FALSE;
  return check_measurements (f, error);
}

