/* config_load.c — a config loaded: include resolution, --set overrides, and the walk of the tree against the key
 * table.
 *
 * Loading is three passes over one located tree: (1) read the file and its includes, merging them;
 * (2) graft --set values into the tree; (3) walk the tree against the key table, converting each value into
 * PsConfig and reporting the first problem at its node. Defaults come from the table as YAML text and go
 * through the same conversion (config_values.c). The rules that need several keys run last (config_rules.c). A
 * topology: and flows: section are taken out before the walk and handed to the caller: app/config/load.c parses them
 * (topology.c), so this file never calls the fabric that derives its nodes' configs from it.
 *
 * Loading stops at the first problem: the user gets one located line (error.h), not a list. Loads run
 * concurrently (validate and sweep workers each load configs), and nothing here keeps mutable static state but
 * the one-time locale setup in set_defaults().
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/config/config_private.h"
#include "app/base/error.h"

/* Include resolution: depth-first, included files merged in order, then the including file on top. The stack
 * holds canonical paths of the files being loaded, which is what detects cycles through different spellings. */
static YNode *load_with_includes (const char *path, GPtrArray *stack, GError **error);

/* One include entry. A relative path is taken from the including file's directory, not the working directory,
 * so a config loads the same from anywhere (configs/ rows include their hosts/, families/ and benchmarks/
 * fragments this way). An empty path is refused: it would name the including file's own directory. */
static gboolean
apply_include (YNode *base, const YNode *inc, const char *including, GPtrArray *stack, GError **error)
{
  if (inc->kind != YNODE_SCALAR || inc->value[0] == '\0') {
    ytree_error (error, PS_ERROR_DATA, inc, "include must be a file path or a list of file paths");
    return FALSE;
  }
  g_autofree char *dir = g_path_get_dirname (including);
  g_autofree char *path = g_path_is_absolute (inc->value) ? g_strdup (inc->value)
                                                            : g_build_filename (dir, inc->value, NULL);
  /* Tested here, not left to ytree_load_file(), so the error is located at the include entry (still exit 66)
   * and says whether the file is missing or is a directory. */
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    ytree_error (error, PS_ERROR_NOINPUT, inc, "included file '%s' %s", path,
                 g_file_test (path, G_FILE_TEST_EXISTS) ? "is not a regular file" : "does not exist");
    return FALSE;
  }
  /* Should realpath() fail (say, a component removed meanwhile), this entry gets no cycle check; the depth
   * limit in load_with_includes() is what still ends a loop. */
  g_autofree char *real = realpath (path, NULL);
  for (guint i = 0; real && i < stack->len; i++) {
    if (strcmp (stack->pdata[i], real) == 0) {
      ytree_error (error, PS_ERROR_DATA, inc, "include cycle: '%s' includes itself through '%s'", including, path);
      return FALSE;
    }
  }
  g_autoptr (GError) e = NULL;
  YNode *sub = load_with_includes (path, stack, &e);
  if (!sub) {
    /* A file that exists but cannot be read (permissions, an I/O error, a /proc file with nothing to give) has no
     * text to point into: the error goes to the include entry that named it, keeping its code. */
    if (e && e->domain == PS_ERROR && !ps_error_file (e))
      ytree_error (error, (PsErrorCode) e->code, inc, "included file %s", ps_error_text (e));
    else
      g_propagate_error (error, g_steal_pointer (&e));
    return FALSE;
  }
  ytree_merge (base, sub);
  return TRUE;
}

static YNode *
load_with_includes (const char *path, GPtrArray *stack, GError **error)
{
  g_autoptr (YNode) tree = ytree_load_file (path, error);
  /* ytree returns an empty document as NULL without an error and leaves the verdict to us: a config (or an
   * included fragment) with no keys is refused, at 1:1 since there is nothing else to point at. */
  if (!tree) {
    if (error && !*error)
      ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "empty file: a config is a mapping of keys");
    return NULL;
  }
  if (tree->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, tree, "a config must be a mapping of keys, not %s",
                 ytree_kind_name (tree->kind));
    return NULL;
  }
  /* A bound beside the cycle check: 16 files deep is far beyond any real config, and it ends any loop the
   * cycle check cannot see (see apply_include()). */
  if (stack->len >= 16) {
    ytree_error (error, PS_ERROR_DATA, tree, "includes nested more than 16 deep");
    return NULL;
  }
  /* Includes merge, in order, into an empty map, and this file's own keys go on top: the including file always
   * wins, however its includes are ordered. `include` itself is taken out, so the key walk never sees it. */
  g_autoptr (YNode) base = ytree_map_new (path, 1, 1);
  g_autoptr (YNode) inc = ytree_map_take (tree, "include");
  if (inc) {
    char *real = realpath (path, NULL);
    g_ptr_array_add (stack, real ? real : g_strdup (path));
    gboolean ok = TRUE;
    if (inc->kind == YNODE_SEQ) {
      for (guint i = 0; ok && i < inc->items->len; i++)
        ok = apply_include (base, inc->items->pdata[i], path, stack, error);
    } else {
      ok = apply_include (base, inc, path, stack, error);
    }
    /* The stack is the chain being loaded, not every file seen: a fragment included twice along different
     * branches (a diamond) is fine; only a file inside its own chain is a cycle. */
    g_ptr_array_remove_index (stack, stack->len - 1);
    if (!ok)
      return NULL;
  }
  if (!cfg_merge_assumptions (base, tree, error))
    return NULL;
  ytree_merge (base, g_steal_pointer (&tree));
  return g_steal_pointer (&base);
}

/* Graft the VALUE of `set` (KEY=VALUE, its '=' at `eq`) at `path` below `root`: the value is YAML, so lists and
 * mappings work; a mapping merges into the section it names, as an include would. `path` is not checked here. */
static gboolean
graft_set (YNode *root, const char *set, const char *eq, const char *path, GError **error)
{
  /* The origin reads exactly "--set KEY=VALUE", which is how mark_set() tells which --set an error lies in.
   * Columns count within KEY=VALUE: the key is at 1. */
  g_autofree char *origin = g_strdup_printf ("--set %s", set);
  const YNode key_pos = { .origin = origin, .line = 1, .col = 1 };
  /* col_offset is the length of "KEY=", so the value's columns count within KEY=VALUE as the key's do. An empty
   * VALUE is an empty YAML document (NULL, no error): make it the empty scalar that `key:` gives in a file,
   * located just past the '='. */
  YNode *value = ytree_load_string (origin, eq + 1, (int) (eq - set) + 1, error);
  if (!value) {
    if (error && *error)
      return FALSE;
    value = ytree_scalar_new (origin, 1, (int) (eq - set) + 2, "");
  }
  /* Walk/create the sections leading to the leaf. */
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  YNode *map = root;
  for (guint i = 0; parts[i + 1]; i++) {
    YNode *next = ytree_map_get (map, parts[i]);
    if (!next) { /* a section the files lack, located at the --set so errors inside it point there */
      next = ytree_map_new (origin, 1, 1);
      ytree_map_set (map, parts[i], next, &key_pos);
    } else if (next->kind != YNODE_MAP) { /* a scalar or list there: `link: 5` in a file, or an earlier --set */
      ytree_error (error, PS_ERROR_DATA, &key_pos, "cannot set '%s': '%s' is not a mapping", path, parts[i]);
      ytree_free (value);
      return FALSE;
    }
    map = next;
  }
  const char *leaf = parts[g_strv_length (parts) - 1];
  YNode *old = ytree_map_get (map, leaf);
  if (old && old->kind == YNODE_MAP && value->kind == YNODE_MAP)
    ytree_merge (old, value);
  else
    ytree_map_set (map, leaf, value, &key_pos);
  return TRUE;
}

/* Graft one --set KEY=VALUE into the merged tree, KEY a key of the table or a section of it, so
 * `--set 'link={lanes: 4}'` keeps the other keys. */
static gboolean
apply_set (YNode *root, const char *set, GError **error)
{
  const char *eq = strchr (set, '=');
  /* A --set that is not KEY=VALUE at all is a command-line mistake (64), not bad config data (65): config.h. */
  if (!eq || eq == set) {
    ps_error_plain (error, PS_ERROR_USAGE, "--set %s: expected KEY.PATH=VALUE", set);
    return FALSE;
  }
  g_autofree char *origin = g_strdup_printf ("--set %s", set);
  g_autofree char *path = g_strndup (set, (gsize) (eq - set));
  const YNode key_pos = { .origin = origin, .line = 1, .col = 1 };
  /* The key is checked before its value is parsed, so a misspelt key is reported as such and not as whatever
   * its value happens to break. First the leaf is matched within its section; if nothing is close, the section
   * may be misspelt too and the whole path is matched. */
  if (!cfg_find_key (path) && !cfg_is_section (path)) {
    const char *dot = strrchr (path, '.');
    g_autofree char *prefix = dot ? g_strndup (path, (gsize) (dot - path)) : g_strdup ("");
    g_autofree char *hint = cfg_suggest (prefix, dot ? dot + 1 : path);
    g_autofree char *full = hint ? (*prefix ? g_strconcat (prefix, ".", hint, NULL) : g_strdup (hint))
                                 : cfg_suggest_path (path);
    if (full)
      ytree_error (error, PS_ERROR_DATA, &key_pos, "unknown key '%s' (did you mean '%s'?)", path, full);
    else
      ytree_error (error, PS_ERROR_DATA, &key_pos, "unknown key '%s'", path);
    return FALSE;
  }
  return graft_set (root, set, eq, path, error);
}

gboolean
ps_config_is_element_set (const char *set)
{
  return g_str_has_prefix (set, "nodes.") || g_str_has_prefix (set, "links.") || g_str_has_prefix (set, "flows.");
}

/* The name a link entry goes by: its name:, else "A-B" from its ends (topology.c names it the same way). */
static char *
link_entry_name (const YNode *e)
{
  if (e->kind == YNODE_MAP) {
    const YNode *n = ytree_map_get (e, "name"), *a = ytree_map_get (e, "a"), *b = ytree_map_get (e, "b");
    if (n && n->kind == YNODE_SCALAR)
      return g_strdup (n->value);
    if (a && b && a->kind == YNODE_SCALAR && b->kind == YNODE_SCALAR)
      return g_strdup_printf ("%s-%s", a->value, b->value);
  } else if (e->kind == YNODE_SEQ && e->items->len == 2) {
    const YNode *a = e->items->pdata[0], *b = e->items->pdata[1];
    if (a->kind == YNODE_SCALAR && b->kind == YNODE_SCALAR)
      return g_strdup_printf ("%s-%s", a->value, b->value);
  }
  return NULL;
}

/* One --set nodes.NAME.KEY=V, links.NAME.KEY=V or flows.NAME.KEY=V: KEY=V grafted into that element of the
 * topology: or flows: section, before either is parsed, so the element's own checks (topology.c) see the value
 * as if the file gave it, located at the --set. A link written [A, B] becomes {a: A, b: B} to take a key. */
static gboolean
apply_element_set (YNode *topology, YNode *flows, const char *set, GError **error)
{
  g_autofree char *origin = g_strdup_printf ("--set %s", set);
  const YNode key_pos = { .origin = origin, .line = 1, .col = 1 };
  const char *eq = strchr (set, '=');
  const char *dot1 = strchr (set, '.');
  const char *dot2 = dot1 && (!eq || dot1 < eq) ? strchr (dot1 + 1, '.') : NULL;
  if (!eq || !dot2 || dot2 > eq || dot2 == dot1 + 1 || dot2 + 1 == eq) {
    ps_error_plain (error, PS_ERROR_USAGE, "--set %s: expected nodes.NAME.KEY=VALUE, links.NAME.KEY=VALUE or "
                    "flows.NAME.KEY=VALUE", set);
    return FALSE;
  }
  g_autofree char *kind = g_strndup (set, (gsize) (dot1 - set));
  g_autofree char *name = g_strndup (dot1 + 1, (gsize) (dot2 - dot1 - 1));
  g_autofree char *path = g_strndup (dot2 + 1, (gsize) (eq - dot2 - 1));
  gboolean node = strcmp (kind, "nodes") == 0, flow = strcmp (kind, "flows") == 0;
  YNode *list = flow ? flows : topology ? ytree_map_get (topology, node ? "nodes" : "links") : NULL;
  if (!list) {
    ytree_error (error, PS_ERROR_DATA, &key_pos, "'%s.%s': this config has no %s: section (nodes., links. and "
                 "flows. address the elements of a fabric)", kind, name, flow ? "flows" : "topology");
    return FALSE;
  }
  YNode *target = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  if (node && list->kind == YNODE_MAP) {
    for (guint i = 0; i < list->keys->len; i++)
      g_ptr_array_add (names, g_strdup (((const YNode *) list->keys->pdata[i])->value));
    target = ytree_map_get (list, name);
  } else if (!node && list->kind == YNODE_SEQ) {
    for (guint i = 0; i < list->items->len; i++) {
      YNode *e = list->items->pdata[i];
      char *n = NULL;
      if (flow && e->kind == YNODE_MAP) {
        const YNode *nn = ytree_map_get (e, "name");
        n = nn && nn->kind == YNODE_SCALAR ? g_strdup (nn->value) : NULL;
      } else if (!flow)
        n = link_entry_name (e);
      if (!n)
        continue;
      if (!target && strcmp (n, name) == 0)
        target = e;
      g_ptr_array_add (names, n);
    }
  }
  if (!target) {
    g_ptr_array_add (names, NULL);
    const char *hint = ps_closest ((const char *const *) names->pdata, name, 3);
    ytree_error (error, PS_ERROR_DATA, &key_pos, "no %s named '%s' in this config%s%s%s", node ? "node" : flow ? "flow"
                 : "link", name, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    return FALSE;
  }
  if (target->kind == YNODE_SEQ) { /* [A, B]: the same link as {a: A, b: B} */
    YNode *m = ytree_map_new (target->origin, target->line, target->col);
    ytree_map_set (m, "a", ytree_copy (target->items->pdata[0]), target->items->pdata[0]);
    ytree_map_set (m, "b", ytree_copy (target->items->pdata[1]), target->items->pdata[1]);
    for (guint i = 0; i < list->items->len; i++)
      if (list->items->pdata[i] == target) {
        ytree_free (target);
        list->items->pdata[i] = m;
      }
    target = m;
  }
  if (target->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, &key_pos, "cannot set '%s' in %s '%s': it is not a mapping", path, kind, name);
    return FALSE;
  }
  return graft_set (target, set, eq, path, error);
}

/* Pass 3: every key is either a leaf in the table (converted) or a section (recursed into); anything else is
 * unknown, reported with the closest name at the same level. */
static gboolean
walk_map (Walk *w, const YNode *map, const char *prefix, GError **error)
{
  for (guint i = 0; i < map->keys->len; i++) {
    const YNode *kn = map->keys->pdata[i];
    const YNode *vn = map->items->pdata[i];
    g_autofree char *path = *prefix ? g_strconcat (prefix, ".", kn->value, NULL) : g_strdup (kn->value);
    const KeyDef *k = cfg_find_key (path);
    if (k) {
      if (!cfg_convert_value (k, vn, w->cfg, error))
        return FALSE;
      g_hash_table_insert (w->seen, (gpointer) k->path, (gpointer) vn);
    } else if (cfg_is_section (path)) {
      /* A section given as a scalar or list (`link: 5`, or `link:` left empty) is an error of its own: skipping
       * it would let every key under it take its default without a word. */
      if (vn->kind != YNODE_MAP) {
        ytree_error (error, PS_ERROR_DATA, vn, "'%s' must be a mapping of keys, not %s", path,
                     ytree_kind_name (vn->kind));
        return FALSE;
      }
      if (!walk_map (w, vn, path, error))
        return FALSE;
    } else {
      /* The hint is sought at the same level only, so a typo under link. never suggests another section's key. */
      g_autofree char *hint = cfg_suggest (prefix, kn->value);
      /* At the top, the fabric's sections are candidates too (`flow:` for `flows:`). */
      if (!hint && !*prefix)
        hint = g_strdup (ps_closest ((const char *const[]) { "topology", "flows", NULL }, kn->value, 3));
      if (hint)
        ytree_error (error, PS_ERROR_DATA, kn, "unknown key '%s' (did you mean '%s%s%s'?)", path, prefix,
                     *prefix ? "." : "", hint);
      else
        ytree_error (error, PS_ERROR_DATA, kn, "unknown key '%s'", path);
      return FALSE;
    }
  }
  return TRUE;
}

/* Defaults go through the same converter as file values, so a bad default aborts at start-up in every test. */
static void
set_defaults (PsConfig *cfg)
{
  /* GLib makes its C locale on a process's first number parse; a thread that waits for another to make it returns
   * with errno set, and g_ascii_string_to_signed() takes that errno for a malformed number. Make the locale once,
   * here, before any converter runs, so concurrent loads (validate, sweep workers) never wait inside a parse. */
  static gsize c_locale_made;
  if (g_once_init_enter (&c_locale_made)) {
    (void) g_ascii_strtoll ("0", NULL, 10);
    g_once_init_leave (&c_locale_made, 1);
  }
  /* The defaults' YAML is parsed once per process and kept: a parse is most of a load's time that is not the
   * files' (--ranges and sweeps load a config once per run, a fabric once per node). Never freed, as the key
   * table is never freed. */
  static YNode **parsed;
  if (g_once_init_enter (&parsed)) {
    YNode **p = g_new0 (YNode *, cfg_n_keys);
    for (size_t i = 0; i < cfg_n_keys; i++) {
      if (!cfg_keys[i].dflt)
        continue;
      /* An empty default ("" for name) is an empty YAML document, NULL without an error: stand in the empty
       * scalar that `name:` gives in a file. */
      p[i] = ytree_load_string ("<default>", cfg_keys[i].dflt, 0, NULL);
      if (!p[i])
        p[i] = ytree_scalar_new ("<default>", 1, 1, "");
    }
    g_once_init_leave (&parsed, p);
  }
  /* Every double starts as NaN, which is how an absent published figure reads (config.h); every other double
   * has a default that overwrites it. */
  for (size_t i = 0; i < cfg_n_keys; i++) {
    const KeyDef *k = &cfg_keys[i];
    if (k->type == K_DOUBLE)
      *(double *) ((char *) cfg + k->offset) = NAN;
    if (!k->dflt)
      continue;
    g_autoptr (GError) e = NULL;
    if (!cfg_convert_value (k, parsed[i], cfg, &e))
      g_error ("default of %s is invalid: %s", k->path, e->message);
  }
}

/* Every node a --set made has the origin apply_set() gives it; of two identical --sets the later is the one whose
 * value stood. */
void
ps_config_mark_set (GError **error, const char *const *sets)
{
  const char *file = error && *error ? ps_error_file (*error) : NULL;
  if (!file || !g_str_has_prefix (file, "--set "))
    return;
  for (int i = (int) g_strv_length ((char **) sets) - 1; i >= 0; i--)
    if (strcmp (file + strlen ("--set "), sets[i]) == 0) {
      ps_error_mark_set (*error, i);
      return;
    }
}

/* Each key's origin from the node its value came from: a node keeps the file (or "--set …" text) it was read
 * from through every merge, so the top file, an include and a --set tell themselves apart by that name alone. */
static void
record_origins (PsConfig *cfg, GHashTable *seen)
{
  cfg->origins = g_new0 (PsKeyOrigin, cfg_n_keys);
  for (size_t i = 0; i < cfg_n_keys; i++) {
    PsKeyOrigin *o = &cfg->origins[i];
    const YNode *n = g_hash_table_lookup (seen, cfg_keys[i].path);
    if (!n) {
      o->from = cfg_keys[i].dflt ? PS_FROM_DEFAULT : PS_FROM_ABSENT;
    } else if (g_str_has_prefix (n->origin, "--set ")) {
      *o = (PsKeyOrigin) { .from = PS_FROM_SET, .at = g_strdup (n->origin), .file = g_strdup (n->origin), .line = 1,
                           .col = 1 };
    } else {
      *o = (PsKeyOrigin) { .from = strcmp (n->origin, cfg->path) == 0 ? PS_FROM_FILE : PS_FROM_INCLUDE,
                           .at = g_strdup_printf ("%s:%d:%d", n->origin, n->line, n->col),
                           .file = g_strdup (n->origin), .line = n->line, .col = n->col };
    }
  }
  cfg->set_changes = cfg_set_changes (cfg);
}

static PsConfig *build (const char *path, YNode *root, const char *const *sets, GError **error);

/* The three passes described at the top of the file; published.* keys may be absent, nothing else without a
 * default may. */
PsConfig *
ps_config_load_keys (const char *path, const char *const *sets, YNode **topology_out, YNode **flows_out,
                     GError **error)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (YNode) root = load_with_includes (path, stack, error);
  if (!root)
    return NULL;
  /* A scenario named where a config belongs would fail on its first scenario-only key ('description', 'base'):
   * say what the file is instead. base: and axes: are what every scenario has and no config key starts with. */
  for (const char *const *word = (const char *const[]) { "base", "axes", NULL }; *word; word++) {
    const YNode *k = ytree_map_key_node (root, *word);
    if (k) {
      ytree_error (error, PS_ERROR_DATA, k, "this is a scenario file ('%s:' is a scenario key): run it with "
                   "pciesim sweep %s", *word, path);
      return NULL;
    }
  }
  /* A fabric's sections are no keys: they name its nodes, links and flows (topology.h), each node's and link's
   * config derived from the rest of the file as it stands before the --sets. */
  g_autoptr (YNode) topology = ytree_map_take (root, "topology");
  g_autoptr (YNode) flows = ytree_map_take (root, "flows");
  g_autoptr (YNode) assumptions = ytree_map_take (root, "assumptions");
  g_autoptr (YNode) file = topology ? ytree_copy (root) : NULL;
  /* --set nodes.NAME.… (links., flows.) goes into that element, the others over the whole file. */
  g_autoptr (GPtrArray) file_sets = g_ptr_array_new ();
  for (const char *const *s = sets; s && *s; s++)
    if (!ps_config_is_element_set (*s))
      g_ptr_array_add (file_sets, (gpointer) *s);
    else if (!apply_element_set (topology, flows, *s, error))
      return NULL;
  g_ptr_array_add (file_sets, NULL);
  g_autoptr (PsConfig) cfg = build (path, root, (const char *const *) file_sets->pdata, error);
  if (!cfg || !cfg_take_assumptions (cfg, assumptions, error))
    return NULL;
  if (flows && !topology) {
    ytree_error (error, PS_ERROR_DATA, flows, "flows: needs a topology: section naming the nodes they run between");
    return NULL;
  }
  if (topology) {
    cfg->tree = g_steal_pointer (&file);
    cfg->sets = g_strdupv ((char **) file_sets->pdata);
  }
  *topology_out = g_steal_pointer (&topology);
  *flows_out = g_steal_pointer (&flows);
  return g_steal_pointer (&cfg);
}

PsConfig *
ps_config_derive (const PsConfig *base, const YNode *overlay, GError **error)
{
  /* The file's --sets are fabric-wide defaults: they go over the file, and a node's or link's own keys over them
   * (--set link.lanes=16 widens every link that does not give its own width). */
  g_autoptr (YNode) root = ytree_copy (base->tree);
  g_autoptr (YNode) assumptions = NULL;
  for (const char *const *s = (const char *const *) base->sets; s && *s; s++)
    if (!apply_set (root, *s, error))
      return NULL;
  if (overlay) {
    /* The overlay's own include: comes first and its keys over it, as in a file (load_with_includes()); the
     * whole then goes over the file's keys. */
    g_autoptr (YNode) top = ytree_copy (overlay);
    g_autoptr (YNode) inc = ytree_map_take (top, "include");
    g_autoptr (YNode) merged = ytree_map_new (overlay->origin, overlay->line, overlay->col);
    g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);
    char *real = realpath (base->path, NULL);
    g_ptr_array_add (stack, real ? real : g_strdup (base->path));
    for (guint i = 0; inc && i < (inc->kind == YNODE_SEQ ? inc->items->len : 1); i++)
      if (!apply_include (merged, inc->kind == YNODE_SEQ ? inc->items->pdata[i] : inc, inc->origin, stack, error))
        return NULL;
    ytree_merge (merged, g_steal_pointer (&top));
    /* A node's own ranges (its assumptions:, and its includes') are its config's; load.c lists them with the
     * file's as nodes.NAME.KEY, which --ranges moves by --set nodes.NAME.KEY. */
    assumptions = ytree_map_take (merged, "assumptions");
    ytree_merge (root, g_steal_pointer (&merged));
  }
  if (assumptions && !cfg_check_assumptions (assumptions, error))
    return NULL;
  g_autoptr (PsConfig) cfg = build (base->path, root, NULL, error);
  if (!cfg || !cfg_take_assumptions (cfg, assumptions, error))
    return NULL;
  return g_steal_pointer (&cfg);
}

/* Passes 2 and 3 over a merged tree (`root`, modified): the --sets, the defaults, the walk, and the checks that
 * need the whole config. */
static PsConfig *
build (const char *path, YNode *root, const char *const *sets, GError **error)
{
  /* After every file and in the order given: the command line wins over any file, a later --set over an earlier. */
  for (const char *const *s = sets; s && *s; s++)
    if (!apply_set (root, *s, error))
      return NULL;

  /* Defaults first: the walk then overwrites exactly the keys the files and --sets give. */
  g_autoptr (PsConfig) cfg = g_new0 (PsConfig, 1);
  cfg->path = g_strdup (path);
  set_defaults (cfg);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  Walk w = { cfg, seen };
  if (!walk_map (&w, root, "", error))
    return NULL;

  /* A missing key has no node to point at: the error is at the named file's 1:1 and says what the key means. */
  for (size_t i = 0; i < cfg_n_keys; i++) {
    const KeyDef *k = &cfg_keys[i];
    if (!k->dflt && !g_str_has_prefix (k->path, "published.") && !g_hash_table_contains (seen, k->path)) {
      ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "required key '%s' is missing (%s)", k->path, k->doc);
      return NULL;
    }
  }
  record_origins (cfg, seen);
  cfg_apply_datapath_default (cfg);
  cfg_apply_switch_dll_default (cfg);
  /* The block's presence, not its figures, makes a config a validate row: a partial published: block is legal. */
  cfg->published.present = ytree_map_get (root, "published") != NULL;
  /* An empty name (the default) becomes the file's base name without its extension: configs/svgx_g1_x1.yaml
   * reports as svgx_g1_x1. */
  if (!cfg->name || !*cfg->name) {
    g_free (cfg->name);
    g_autofree char *base = g_path_get_basename (path);
    char *dot = strrchr (base, '.');
    cfg->name = dot ? g_strndup (base, (gsize) (dot - base)) : g_strdup (base);
  }
  if (!cfg_check_combinations (&w, root, error))
    return NULL;
  return g_steal_pointer (&cfg);
}

void
ps_config_free (PsConfig *cfg)
{
  if (!cfg)
    return;
  g_free (cfg->path);
  g_free (cfg->name);
  g_free (cfg->published.source);
  g_free (cfg->published.suspect_reason);
  g_free (cfg->published.accepted_reason);
  for (size_t i = 0; cfg->origins && i < cfg_n_keys; i++) {
    g_free (cfg->origins[i].at);
    g_free (cfg->origins[i].file);
    g_free (cfg->origins[i].rule);
  }
  g_free (cfg->origins);
  g_free (cfg->set_changes);
  for (size_t i = 0; i < cfg_n_keys; i++)
    if (cfg_keys[i].type == K_POINTS)
      g_free (((PsPoints *) ((char *) cfg + cfg_keys[i].offset))->pairs);
  for (guint i = 0; i < cfg->n_assumptions; i++) {
    g_free (cfg->assumptions[i].key);
    g_free (cfg->assumptions[i].at);
  }
  g_free (cfg->assumptions);
  if (cfg->topology && cfg->topology_free)
    cfg->topology_free (cfg->topology);
  ytree_free (cfg->tree);
  g_strfreev (cfg->sets);
  g_free (cfg);
}
