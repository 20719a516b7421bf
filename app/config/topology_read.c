/* topology_read.c — the topology parser's small readers (topology_impl.h): typed values and names, each refusal
 * located at its node, and the lookups of a node by name. */
#include "app/config/topology_impl.h"

#include <math.h>
#include <string.h>

#include "app/base/error.h"

gboolean
topo_want (const YNode *n, YNodeKind kind, const char *what, GError **error)
{
  if (n->kind == kind)
    return TRUE;
  ytree_error (error, PS_ERROR_DATA, n, "%s must be %s, not %s", what, ytree_kind_name (kind),
               ytree_kind_name (n->kind));
  return FALSE;
}

/* A plain decimal integer in [min, max]. */
gboolean
topo_read_int (const YNode *n, const char *what, int64_t min, int64_t max, int64_t *out, GError **error)
{
  gint64 v;
  if (n->kind != YNODE_SCALAR || !n->plain || !g_ascii_string_to_signed (n->value, 10, min, max, &v, NULL)) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                 "%s%s%s", what, min, max, n->kind == YNODE_SCALAR ? " (got '" : "",
                 n->kind == YNODE_SCALAR ? n->value : "", n->kind == YNODE_SCALAR ? "')" : "");
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean
topo_read_double (const YNode *n, const char *what, double min, double max, double *out, GError **error)
{
  char *end = NULL;
  double v = n->kind == YNODE_SCALAR && n->plain ? g_ascii_strtod (n->value, &end) : NAN;
  if (!end || end == n->value || *end || !isfinite (v) || v < min || v > max) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a number from %g to %g%s%s%s", what, min, max,
                 n->kind == YNODE_SCALAR ? " (got '" : "", n->kind == YNODE_SCALAR ? n->value : "",
                 n->kind == YNODE_SCALAR ? "')" : "");
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean
topo_read_word (const YNode *n, const char *what, const char *const *words, int *out, GError **error)
{
  for (int i = 0; n->kind == YNODE_SCALAR && words[i]; i++)
    if (strcmp (n->value, words[i]) == 0) {
      *out = i;
      return TRUE;
    }
  g_autofree char *list = g_strjoinv (", ", (char **) words);
  const char *hint = n->kind == YNODE_SCALAR ? ps_closest (words, n->value, 3) : NULL;
  ytree_error (error, PS_ERROR_DATA, n, "%s must be one of %s%s%s%s", what, list, hint ? " (did you mean '" : "",
               hint ? hint : "", hint ? "'?)" : "");
  return FALSE;
}

/* Names become report keys and metric names (FLOW_mbps): letters, digits, '_' and '-', at most 64. */
gboolean
topo_check_name (const YNode *n, const char *what, GError **error)
{
  gboolean ok = n->kind == YNODE_SCALAR && n->value[0] && strlen (n->value) <= 64;
  for (const char *c = ok ? n->value : ""; *c && ok; c++)
    ok = g_ascii_isalnum (*c) || *c == '_' || *c == '-';
  if (!ok)
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a name of letters, digits, '_' and '-' (at most 64)", what);
  return ok;
}

gboolean
topo_unknown_key (const YNode *key, const char *where, const char *const *choices, GError **error)
{
  const char *hint = ps_closest (choices, key->value, 3);
  ytree_error (error, PS_ERROR_DATA, key, "unknown key '%s' in %s%s%s%s", key->value, where,
               hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
  return FALSE;
}

int
topo_find_node (const PsTopology *t, const char *name)
{
  for (guint i = 0; i < t->n_nodes; i++)
    if (strcmp (t->nodes[i].name, name) == 0)
      return (int) i;
  return -1;
}

gboolean
topo_no_such_node (const PsTopology *t, const YNode *n, const char *name, GError **error)
{
  g_autofree const char **names = g_new0 (const char *, t->n_nodes + 1);
  for (guint i = 0; i < t->n_nodes; i++)
    names[i] = t->nodes[i].name;
  const char *hint = ps_closest (names, name, 3);
  ytree_error (error, PS_ERROR_DATA, n, "unknown node '%s'%s%s%s", name, hint ? " (did you mean '" : "",
               hint ? hint : "", hint ? "'?)" : "");
  return FALSE;
}

/* The config that holds a node's values: its own, or the file's when it adds nothing. */
const PsConfig *
topo_node_cfg (const PsConfig *file, const PsNode *n)
{
  return n->cfg ? n->cfg : file;
}
