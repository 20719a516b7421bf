/* ytree.c — libyaml document API -> located YNode tree, with the guards listed in ytree.h.
 *
 * A text is read twice: check_events() streams libyaml's events to refuse, cheaply and at the first offence,
 * what would make composing the document slow or unsafe (depth, anchors, aliases, tags); then the document
 * is composed and convert() copies it into YNodes, refusing duplicate keys, non-scalar keys and NULs. The
 * YNode tree owns copies of everything, so no libyaml structure outlives a load. */
#include "app/config/ytree.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "app/base/error.h"

/* For g_auto() on libyaml's stack structs. The g_auto() declarations in this file are left uninitialised, which
 * is safe only because yaml_parser_initialize() and yaml_parser_load() zero their struct before anything can
 * fail (a failed load also deletes and re-zeroes it), and no return comes between a declaration and that call. */
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (yaml_parser_t, yaml_parser_delete)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (yaml_document_t, yaml_document_delete)

/* Kind names read as the noun phrase error messages need ("must be a mapping, not a sequence"). */
const char *
ytree_kind_name (YNodeKind kind)
{
  switch (kind) {
  case YNODE_SCALAR:
    return "a scalar";
  case YNODE_MAP:
    return "a mapping";
  case YNODE_SEQ:
    return "a sequence";
  }
  return "?";
}

/* Every node owns a copy of its origin: trees outlive the parser and are merged across files. */
static YNode *
node_new (YNodeKind kind, const char *origin, int line, int col)
{
  YNode *n = g_new0 (YNode, 1);
  n->kind = kind;
  n->origin = g_strdup (origin);
  n->line = line;
  n->col = col;
  if (kind == YNODE_MAP) {
    n->keys = g_ptr_array_new_with_free_func ((GDestroyNotify) ytree_free);
    n->items = g_ptr_array_new_with_free_func ((GDestroyNotify) ytree_free);
  } else if (kind == YNODE_SEQ) {
    n->items = g_ptr_array_new_with_free_func ((GDestroyNotify) ytree_free);
  }
  return n;
}

/* A made-up scalar (an empty default, a scenario's generated range value, an empty --set value) counts as
 * plain, as if written unquoted, so it may stand for a number or a boolean like the file value it replaces. */
YNode *
ytree_scalar_new (const char *origin, int line, int col, const char *value)
{
  YNode *n = node_new (YNODE_SCALAR, origin, line, col);
  n->value = g_strdup (value);
  n->plain = TRUE;
  return n;
}

YNode *
ytree_map_new (const char *origin, int line, int col)
{
  return node_new (YNODE_MAP, origin, line, col);
}

/* NULL-safe because GPtrArray calls its free function on NULL slots too: ytree_merge() empties the slots whose
 * values it moves before freeing the array that held them. */
void
ytree_free (YNode *node)
{
  if (!node)
    return;
  g_free (node->origin);
  g_free (node->value);
  if (node->keys)
    g_ptr_array_unref (node->keys);
  if (node->items)
    g_ptr_array_unref (node->items);
  g_free (node);
}

/* Deep copy, for callers (scenarios) that graft the same overrides into many points' trees. */
YNode *
ytree_copy (const YNode *src)
{
  YNode *n = node_new (src->kind, src->origin, src->line, src->col);
  n->value = g_strdup (src->value);
  n->plain = src->plain;
  if (src->keys)
    for (guint i = 0; i < src->keys->len; i++)
      g_ptr_array_add (n->keys, ytree_copy (src->keys->pdata[i]));
  if (src->items)
    for (guint i = 0; i < src->items->len; i++)
      g_ptr_array_add (n->items, ytree_copy (src->items->pdata[i]));
  return n;
}

/* Linear: lookups by callers are few and maps small; bulk merging uses the hash index in ytree_merge().
 * A NULL or non-map `map` has no keys, so callers may look up in any node without testing its kind first. */
static int
map_index (const YNode *map, const char *key)
{
  if (!map || map->kind != YNODE_MAP)
    return -1;
  for (guint i = 0; i < map->keys->len; i++)
    if (strcmp (((YNode *) map->keys->pdata[i])->value, key) == 0)
      return (int) i;
  return -1;
}

YNode *
ytree_map_get (const YNode *map, const char *key)
{
  int i = map_index (map, key);
  return i < 0 ? NULL : map->items->pdata[i];
}

YNode *
ytree_map_key_node (const YNode *map, const char *key)
{
  int i = map_index (map, key);
  return i < 0 ? NULL : map->keys->pdata[i];
}

/* Removes and returns a value; used for `include:`, which must not reach key validation. The value is stolen
 * (the caller owns it), the key node freed. */
YNode *
ytree_map_take (YNode *map, const char *key)
{
  int i = map_index (map, key);
  if (i < 0)
    return NULL;
  YNode *v = g_ptr_array_steal_index (map->items, (guint) i);
  g_ptr_array_remove_index (map->keys, (guint) i);
  return v;
}

/* Replacing in place keeps the key where the file put it, so reports list keys in file order. */
void
ytree_map_set (YNode *map, const char *key, YNode *value, const YNode *key_pos)
{
  int i = map_index (map, key);
  if (i >= 0) {
    ytree_free (map->items->pdata[i]);
    map->items->pdata[i] = value;
    return;
  }
  /* A new key needs a position; without one from the caller, the value's is the nearest there is. */
  const YNode *pos = key_pos ? key_pos : value;
  g_ptr_array_add (map->keys, ytree_scalar_new (pos->origin, pos->line, pos->col, key));
  g_ptr_array_add (map->items, value);
}

/* Maps merge key by key, recursively, so a later file can change one key of a section without restating the
 * rest. Anything else, lists included, is replaced whole: appending would leave no way to shorten a list. */
void
ytree_merge (YNode *base, YNode *top)
{
  g_assert (base->kind == YNODE_MAP && top->kind == YNODE_MAP);
  /* Every loaded file is merged into a map, so one linear lookup per key would make loading quadratic in the
   * size of a mapping: index base's keys (text -> position + 1) once instead. Position + 1 because a missing
   * key looks up as NULL, i.e. 0. The index borrows the key texts, which base's key nodes keep alive. */
  g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < base->keys->len; i++)
    g_hash_table_insert (index, ((YNode *) base->keys->pdata[i])->value, GUINT_TO_POINTER (i + 1));
  for (guint i = 0; i < top->keys->len; i++) {
    YNode *k = top->keys->pdata[i];
    YNode *v = top->items->pdata[i];
    top->items->pdata[i] = NULL; /* v now belongs to base (or is merged into it); freeing top must not free it */
    guint at = GPOINTER_TO_UINT (g_hash_table_lookup (index, k->value));
    if (!at) {
      YNode *kn = ytree_scalar_new (k->origin, k->line, k->col, k->value);
      g_ptr_array_add (base->keys, kn);
      g_ptr_array_add (base->items, v);
      g_hash_table_insert (index, kn->value, GUINT_TO_POINTER (base->keys->len));
      continue;
    }
    YNode *old = base->items->pdata[at - 1];
    if (old->kind == YNODE_MAP && v->kind == YNODE_MAP) {
      ytree_merge (old, v);
    } else {
      ytree_free (old);
      base->items->pdata[at - 1] = v; /* the key keeps its first position, as ytree_map_set does */
    }
  }
  ytree_free (top);
}

/* --- loading ------------------------------------------------------------------------------------------- */

typedef struct {
  const char *origin; /* copied into every node */
  int col_offset;
  yaml_document_t *doc;
  guint8 *visited; /* per libyaml node index (1-based): an alias shows up as a second visit */
  GError **error; /* the caller's, maybe NULL: convert() signals failure by returning NULL, never reads it */
} Loader;

/* 1-based column from libyaml's 0-based one. col_offset shifts line 1 only: a --set value is parsed alone, and
 * its first line sits after the "KEY=" that the origin "--set KEY=VALUE" shows before it. */
static int
col_of_mark (yaml_mark_t m, int col_offset)
{
  return (int) m.column + 1 + (m.line == 0 ? col_offset : 0);
}

static int
col_of (const Loader *ld, yaml_mark_t m)
{
  return col_of_mark (m, ld->col_offset);
}

/* libyaml document -> YNode tree. Recursion is bounded: check_events() already refused deeper nesting. */
static YNode *
convert (Loader *ld, int index, int depth)
{
  yaml_node_t *yn = yaml_document_get_node (ld->doc, index);
  int line = (int) yn->start_mark.line + 1;
  int col = col_of (ld, yn->start_mark);
  /* Unreachable while check_events() refuses every alias, but kept so convert() is safe on its own: it copies,
   * so a node reached through nested aliases would be copied once per path, exponentially many times. */
  if (ld->visited[index]) {
    ps_error_located (ld->error, PS_ERROR_DATA, ld->origin, line, col,
                      "this node is reused through a YAML alias; anchors and aliases are not supported (write the value out)");
    return NULL;
  }
  ld->visited[index] = 1;
  if (depth > YTREE_MAX_DEPTH) {
    ps_error_located (ld->error, PS_ERROR_DATA, ld->origin, line, col, "nesting deeper than %d levels",
                      YTREE_MAX_DEPTH);
    return NULL;
  }
  switch (yn->type) {
  case YAML_SCALAR_NODE: {
    YNode *n = node_new (YNODE_SCALAR, ld->origin, line, col);
    n->value = g_strndup ((const char *) yn->data.scalar.value, yn->data.scalar.length);
    n->plain = yn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    /* A double-quoted "\0" escape puts a NUL inside the value; every C-string use would then see only the text
     * before it, so a key or value could pass checks that its full text fails. libyaml's length tells. */
    if (strlen (n->value) != yn->data.scalar.length) {
      ps_error_located (ld->error, PS_ERROR_DATA, ld->origin, line, col, "NUL character in a scalar");
      ytree_free (n);
      return NULL;
    }
    return n;
  }
  /* A failure below returns NULL with the error set; g_autoptr frees the partial node, so no half tree escapes. */
  case YAML_SEQUENCE_NODE: {
    g_autoptr (YNode) n = node_new (YNODE_SEQ, ld->origin, line, col);
    for (yaml_node_item_t *it = yn->data.sequence.items.start; it < yn->data.sequence.items.top; it++) {
      YNode *c = convert (ld, *it, depth + 1);
      if (!c)
        return NULL;
      g_ptr_array_add (n->items, c);
    }
    return g_steal_pointer (&n);
  }
  case YAML_MAPPING_NODE: {
    g_autoptr (YNode) n = node_new (YNODE_MAP, ld->origin, line, col);
    /* key text -> key node, so duplicate detection stays linear in the size of the mapping */
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
    /* Keys are children too (depth + 1), as check_events() counts them. A duplicate is refused, not resolved:
     * libyaml hands both pairs over, a lookup would quietly take the first, and the file's reader may expect the
     * last. */
    for (yaml_node_pair_t *p = yn->data.mapping.pairs.start; p < yn->data.mapping.pairs.top; p++) {
      g_autoptr (YNode) k = convert (ld, p->key, depth + 1);
      if (!k)
        return NULL;
      if (k->kind != YNODE_SCALAR) {
        ytree_error (ld->error, PS_ERROR_DATA, k, "mapping keys must be scalars");
        return NULL;
      }
      const YNode *dup = g_hash_table_lookup (seen, k->value);
      if (dup) {
        ytree_error (ld->error, PS_ERROR_DATA, k, "duplicate key '%s' (first defined at line %d)", k->value, dup->line);
        return NULL;
      }
      YNode *v = convert (ld, p->value, depth + 1);
      if (!v)
        return NULL;
      g_hash_table_insert (seen, k->value, k);
      g_ptr_array_add (n->keys, g_steal_pointer (&k));
      g_ptr_array_add (n->items, v);
    }
    return g_steal_pointer (&n);
  }
  case YAML_NO_NODE: /* never in a composed document; reported rather than trusted */
    break;
  }
  ps_error_located (ld->error, PS_ERROR_DATA, ld->origin, line, col, "unexpected YAML node");
  return NULL;
}

/* libyaml reports reader (encoding) errors as a byte offset only: count lines and columns up to it. Columns count
 * characters, as libyaml's marks and every other message do, so UTF-8 continuation bytes (10xxxxxx) add none;
 * everything before the offset was decoded successfully, so each character has exactly one lead byte there. */
static void
offset_to_mark (const char *text, size_t len, size_t offset, int *line, int *col)
{
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < offset && i < len; i++) {
    if (text[i] == '\n') {
      (*line)++;
      *col = 1;
    } else if (((unsigned char) text[i] & 0xc0) != 0x80) {
      (*col)++;
    }
  }
}

/* At the end of a text that lacks a final newline (every --set value, some hand-written files), libyaml reports
 * the start of a line that does not exist; the last character is on the line before. Move such a mark to just
 * past that character. Columns count characters, as libyaml's do. Only a column-0 mark can be such a phantom,
 * and a text ending in '\r' has really ended its line: libyaml takes a lone CR as a line break too. */
static yaml_mark_t
clamp_to_text (yaml_mark_t m, const char *text, size_t len)
{
  if (len == 0 || text[len - 1] == '\n' || text[len - 1] == '\r' || m.column != 0)
    return m;
  size_t newlines = 0;
  const char *last_line = text;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n') {
      newlines++;
      last_line = text + i + 1;
    }
  if (m.line != newlines + 1)
    return m;
  m.line = newlines;
  m.column = (size_t) g_utf8_strlen (last_line, (gssize) (text + len - last_line));
  return m;
}

/* What stands at a (clamped) mark, for the "(found …)" part of a two-mark syntax error, as PyYAML says what it
 * got where libyaml names only what it expected: the end of the text ("the end of the value" for a --set), a
 * mapping key (libyaml stops at the ':' of "  gen: 3" or at the key itself; either way the key is reported, at
 * its own column, which *mark is moved to), or the rest of the line, shortened. Columns count characters. */
static char *
found_at (yaml_mark_t *mark, const char *text, size_t len, gboolean is_set)
{
  const char *p = text, *end = text + len;
  for (size_t l = 0; l < mark->line && p < end; p++)
    if (*p == '\n')
      l++;
  const char *line_start = p;
  for (size_t c = 0; c < mark->column && p < end && *p != '\n'; c++)
    p = g_utf8_next_char (p);
  if (p >= end || !*p)
    return g_strdup (is_set ? "the end of the value" : "the end of the file");
  size_t n = strcspn (p, "\r\n");
  if (n == 0)
    return g_strdup ("the end of the line");
  /* At the ':' of a key: the key is the line's first word, if the ':' ends it. */
  if (*p == ':') {
    const char *k = line_start;
    while (k < p && (*k == ' ' || *k == '-'))
      k++;
    size_t word = strcspn (k, " \t[]{},\"'#:");
    if (k < p && k + word == p) {
      mark->column = (size_t) g_utf8_strlen (line_start, k - line_start);
      return g_strdup_printf ("a mapping key '%.*s'", (int) (p - k), k);
    }
  }
  g_autofree char *rest = g_strndup (p, n);
  /* A plain key followed by ": " (or ':' at the end of the line) is how a block mapping's next key looks. */
  size_t k = strcspn (rest, ":#[]{},\"' \t");
  if (k > 0 && rest[k] == ':' && (rest[k + 1] == ' ' || rest[k + 1] == '\0'))
    return g_strdup_printf ("a mapping key '%.*s'", (int) k, rest);
  if (g_utf8_strlen (rest, -1) > 20)
    return g_strdup_printf ("'%.*s…'", (int) (g_utf8_offset_to_pointer (rest, 20) - rest), rest);
  return g_strdup_printf ("'%s'", rest);
}

/* A scanner or parser error has a problem mark (where libyaml gave up) and often a context ("while parsing a
 * flow sequence") with the mark where that construct began. Both are named, as PyYAML does, and the error is
 * located at the earlier one: for an unclosed '[' or quote the opening is what the user must find, and the
 * problem mark (often the end of the file) says only where libyaml noticed. */
static void
parser_error (const yaml_parser_t *p, const char *origin, const char *text, size_t len, int col_offset,
              GError **error)
{
  int line, col;
  if (p->error == YAML_READER_ERROR) {
    offset_to_mark (text, len, p->problem_offset, &line, &col);
    ps_error_located (error, PS_ERROR_DATA, origin, line, col, "not a valid YAML text: %s",
                      p->problem ? p->problem : "unreadable input");
    return;
  }
  if (p->error == YAML_MEMORY_ERROR) { /* libyaml records no position for it */
    ps_error_located (error, PS_ERROR_DATA, origin, 1, 1, "YAML parser ran out of memory");
    return;
  }
  yaml_mark_t pm = clamp_to_text (p->problem_mark, text, len);
  const char *problem = p->problem ? p->problem : "syntax error";
  line = (int) pm.line + 1;
  col = col_of_mark (pm, col_offset);
  if (!p->context) {
    ps_error_located (error, PS_ERROR_DATA, origin, line, col, "%s", problem);
    return;
  }
  yaml_mark_t cm = clamp_to_text (p->context_mark, text, len);
  int cline = (int) cm.line + 1, ccol = col_of_mark (cm, col_offset);
  /* libyaml's contexts read "while parsing a flow sequence", "while scanning a quoted scalar": the construct is
   * what follows the article. */
  const char *what = NULL;
  for (const char *const *pre = (const char *const[]) { "while parsing a ", "while parsing an ", "while scanning a ",
                                                        "while scanning an ", NULL };
       *pre; pre++)
    if (g_str_has_prefix (p->context, *pre)) {
      what = p->context + strlen (*pre);
      break;
    }
  /* A context that names no construct ("while scanning for the next token"), or one that began where the problem
   * lies, has no second place to show. */
  if (!what || (cm.line == pm.line && cm.column == pm.column)) {
    ps_error_located (error, PS_ERROR_DATA, origin, line, col, "%s (%s)", problem, p->context);
    return;
  }
  gboolean is_set = g_str_has_prefix (origin, "--set ");
  g_autofree char *found = found_at (&pm, text, len, is_set);
  line = (int) pm.line + 1;
  col = col_of_mark (pm, col_offset);
  /* A flow collection or quoted scalar that ran into something other than its closing bracket or quote is
   * unclosed: say so in the user's terms; libyaml's own words for the problem add nothing then. */
  gboolean bracket = g_str_has_prefix (what, "flow ") && g_str_has_prefix (problem, "did not find expected ','");
  gboolean quote = strcmp (what, "quoted scalar") == 0 && strstr (problem, "end of stream");
  if (bracket || quote)
    ps_error_located (error, PS_ERROR_DATA, origin, cline, ccol, "%s opened at %d:%d is not closed (found %s at %d:%d)",
                      what, cline, ccol, found, line, col);
  /* A problem that already says what was found ("found a tab character …") needs only its place. */
  else if (g_str_has_prefix (problem, "found "))
    ps_error_located (error, PS_ERROR_DATA, origin, cline, ccol, "%s started at %d:%d: %s at %d:%d", what, cline, ccol,
                      problem, line, col);
  else
    ps_error_located (error, PS_ERROR_DATA, origin, cline, ccol, "%s started at %d:%d: %s (found %s at %d:%d)", what,
                      cline, ccol, problem, found, line, col);
}

/* Depth, anchors, aliases and tags are checked on libyaml's event stream before it composes a document, because
 * composing is where the cost lies: its scanner rechecks every open flow level on each token and its anchor
 * table checks every earlier anchor, both quadratic, so a 1 MiB file of '[' took about 14 minutes and one of
 * '&a' anchors about 20 s before convert() could object. Stopping at the first offending event keeps loading
 * linear. Anchors are refused with aliases: without an alias an anchor does nothing. Syntax errors are left
 * for the document load to report, so they read the same whether or not this pass runs. */
static gboolean
check_events (const char *origin, const char *text, size_t len, int col_offset, GError **error)
{
  g_auto (yaml_parser_t) parser;
  if (!yaml_parser_initialize (&parser))
    g_error ("out of memory initialising libyaml");
  yaml_parser_set_input_string (&parser, (const unsigned char *) text, len);
  int open = 0; /* collections enclosing the next node: its depth as convert() counts it */
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse (&parser, &ev))
      return TRUE; /* a syntax error: the document load reports it (see above) */
    const yaml_char_t *anchor = NULL, *tag = NULL;
    gboolean node = FALSE, alias = FALSE;
    switch (ev.type) {
    case YAML_SCALAR_EVENT:
      node = TRUE;
      anchor = ev.data.scalar.anchor;
      tag = ev.data.scalar.tag;
      break;
    case YAML_SEQUENCE_START_EVENT:
      node = TRUE;
      anchor = ev.data.sequence_start.anchor;
      tag = ev.data.sequence_start.tag;
      break;
    case YAML_MAPPING_START_EVENT:
      node = TRUE;
      anchor = ev.data.mapping_start.anchor;
      tag = ev.data.mapping_start.tag;
      break;
    case YAML_ALIAS_EVENT:
      node = alias = TRUE;
      anchor = ev.data.alias.anchor;
      break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      open--;
      break;
    default:
      break;
    }
    int line = (int) ev.start_mark.line + 1, col = col_of_mark (ev.start_mark, col_offset);
    gboolean done = ev.type == YAML_STREAM_END_EVENT;
    if (node && open > YTREE_MAX_DEPTH) {
      ps_error_located (error, PS_ERROR_DATA, origin, line, col, "nesting deeper than %d levels", YTREE_MAX_DEPTH);
      done = TRUE;
    } else if (anchor) { /* an alias carries its anchor's name: each is reported where it stands, '*' or '&' */
      ps_error_located (error, PS_ERROR_DATA, origin, line, col,
                        "YAML %s '%c%s': anchors and aliases are not supported (write the value out)",
                        alias ? "alias" : "anchor", alias ? '*' : '&', (const char *) anchor);
      done = TRUE;
    } else if (tag) {
      /* Only explicit tags reach events. Every one is refused, the standard ones too: !!str 8 would turn a number
       * into a string behind a plain-looking value, and language tags (!!python/object) ask a loader to run code. */
      ps_error_located (error, PS_ERROR_DATA, origin, line, col,
                        "YAML tag '%s' is not supported (write the plain value)", (const char *) tag);
      done = TRUE;
    }
    /* Counted after the checks: a collection's depth is the number of collections around it, not counting
     * itself, as for a scalar. */
    if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
      open++;
    yaml_event_delete (&ev);
    if (done)
      return !(error && *error);
  }
}

/* Whether `text` is a YAML plain scalar on its own that libyaml would give back unchanged: letters and digits, and
 * . _ + - inside it or before a digit. Nothing in that set starts an indicator, a comment, a document marker
 * ("---", "..."), a tag or a flow collection, and no character of it is folded. */
static gboolean
is_simple_scalar (const char *text)
{
  const char *c = text;
  if (c[0] == '\0')
    return FALSE; /* the empty document: NULL without an error, below */
  if (!g_ascii_isalnum (c[0]) && !(strchr ("+-.", c[0]) && g_ascii_isdigit (c[1])))
    return FALSE;
  for (; *c; c++)
    if (!g_ascii_isalnum (*c) && !strchr ("._+-", *c))
      return FALSE;
  return TRUE;
}

YNode *
ytree_load_string (const char *origin, const char *text, int col_offset, GError **error)
{
  /* A single plain scalar — nearly every default and --set value — is what the two libyaml passes below would make
   * of it, at a hundredth of their cost: a process parses every key's default, and --ranges and sweeps parse
   * their --sets once per run. tests/test-ytree.c holds both paths to the same nodes. */
  if (is_simple_scalar (text))
    return ytree_scalar_new (origin, 1, 1 + col_offset, text);
  /* text is a C string: a NUL would end it early, which is why ytree_load_file() refuses NUL bytes first. */
  size_t len = strlen (text);
  /* check_events() reads its verdict from the error it sets, so it needs a real GError even when the caller
   * passed NULL. */
  g_autoptr (GError) local = NULL;
  if (!check_events (origin, text, len, col_offset, &local)) {
    g_propagate_error (error, g_steal_pointer (&local));
    return NULL;
  }
  /* A fresh parser: the event pass has consumed the first one's stream. */
  g_auto (yaml_parser_t) parser;
  if (!yaml_parser_initialize (&parser))
    g_error ("out of memory initialising libyaml");
  yaml_parser_set_input_string (&parser, (const unsigned char *) text, len);

  g_auto (yaml_document_t) doc;
  if (!yaml_parser_load (&parser, &doc)) {
    memset (&doc, 0, sizeof doc); /* nothing to delete */
    parser_error (&parser, origin, text, len, col_offset, error);
    return NULL;
  }
  yaml_node_t *root = yaml_document_get_root_node (&doc);
  if (!root)
    return NULL; /* empty document, or none at all (only comments): no error, callers decide (ytree.h) */

  /* A second document in the stream would silently be ignored: refuse it instead. */
  yaml_document_t extra;
  if (!yaml_parser_load (&parser, &extra)) {
    parser_error (&parser, origin, text, len, col_offset, error);
    return NULL;
  }
  yaml_node_t *extra_root = yaml_document_get_root_node (&extra);
  if (extra_root) {
    int line = (int) extra.start_mark.line + 1, col = (int) extra.start_mark.column + 1;
    yaml_document_delete (&extra);
    ps_error_located (error, PS_ERROR_DATA, origin, line, col, "more than one YAML document");
    return NULL;
  }
  yaml_document_delete (&extra);

  /* libyaml numbers nodes from 1 and the root is node 1: visited gets one unused entry at 0. */
  size_t n_nodes = (size_t) (doc.nodes.top - doc.nodes.start);
  g_autofree guint8 *visited = g_new0 (guint8, n_nodes + 1);
  Loader ld = { origin, col_offset, &doc, visited, error };
  return convert (&ld, 1, 0);
}

/* The file cache of ytree_cache_begin(): path -> the tree its first load gave, while any caller holds it. */
static GMutex cache_lock;
static GHashTable *cache;
static guint cache_holders;

void
ytree_cache_begin (void)
{
  g_mutex_lock (&cache_lock);
  if (cache_holders++ == 0)
    cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) ytree_free);
  g_mutex_unlock (&cache_lock);
}

void
ytree_cache_end (void)
{
  g_mutex_lock (&cache_lock);
  g_assert (cache_holders > 0);
  if (--cache_holders == 0)
    g_clear_pointer (&cache, g_hash_table_unref);
  g_mutex_unlock (&cache_lock);
}

static YNode *load_file (const char *path, GError **error);

YNode *
ytree_load_file (const char *path, GError **error)
{
  g_mutex_lock (&cache_lock);
  const YNode *kept = cache ? g_hash_table_lookup (cache, path) : NULL;
  YNode *copy = kept ? ytree_copy (kept) : NULL;
  gboolean caching = cache != NULL;
  g_mutex_unlock (&cache_lock);
  if (copy || !caching)
    return copy ? copy : load_file (path, error);
  /* Parsed outside the lock, so loads of different files go on at once; of two threads loading the same file
   * first, the later insert replaces an identical tree. Failures are not kept: each caller gets its own error. */
  YNode *tree = load_file (path, error);
  if (tree) {
    g_mutex_lock (&cache_lock);
    if (cache)
      g_hash_table_replace (cache, g_strdup (path), ytree_copy (tree));
    g_mutex_unlock (&cache_lock);
  }
  return tree;
}

static YNode *
load_file (const char *path, GError **error)
{
  /* A file that cannot be found or opened gets an unlocated error, having no text to point into; config_load.c tests
   * an include's path first so that a missing include is located at the entry naming it. */
  struct stat st;
  if (stat (path, &st) != 0) {
    int e = errno;
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s: %s", path, g_strerror (e));
    return NULL;
  }
  /* Directories, FIFOs and devices are refused before opening: reading one could block or never end. */
  if (!S_ISREG (st.st_mode)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s: not a regular file", path);
    return NULL;
  }
  /* Refused by the size it claims, before a byte is read: a huge file costs nothing. */
  if (st.st_size > YTREE_MAX_FILE_BYTES) {
    ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "file is %lld bytes; configs are limited to %d bytes",
                      (long long) st.st_size, YTREE_MAX_FILE_BYTES);
    return NULL;
  }
  /* st_size says 0 for /proc and /sys files, which may be endless or have nothing to give yet (/proc/kmsg
   * blocks a reader forever): so the size limit is enforced on the bytes actually read, and the file is opened
   * non-blocking, turning "would wait" into an error instead of a hang. */
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s: %s", path, g_strerror (e));
    return NULL;
  }
  /* One byte more than the limit is asked for, so a file of exactly the limit (accepted) is told from a longer
   * one (refused) without reading further; + 2 holds that byte and the terminating NUL. */
  g_autofree char *text = g_malloc (YTREE_MAX_FILE_BYTES + 2);
  gsize len = 0;
  for (;;) {
    ssize_t n = read (fd, text + len, YTREE_MAX_FILE_BYTES + 1 - len);
    if (n < 0 && errno == EINTR) /* a caught signal (sweep's handlers have no SA_RESTART) is not a read error */
      continue;
    if (n < 0) {
      int e = errno;
      close (fd);
      ps_error_plain (error, PS_ERROR_NOINPUT, "%s: cannot read: %s", path, g_strerror (e));
      return NULL;
    }
    len += (gsize) n;
    if (n == 0 || len > YTREE_MAX_FILE_BYTES)
      break;
  }
  close (fd);
  /* Reached by a file whose st_size understated it: a /proc file, or one growing while it was read. */
  if (len > YTREE_MAX_FILE_BYTES) {
    ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "file is more than %d bytes; configs are limited to that",
                      YTREE_MAX_FILE_BYTES);
    return NULL;
  }
  text[len] = '\0';
  /* libyaml would read UTF-16 with a BOM, but our texts are C strings and every tool around them (grep, diff,
   * --set) speaks UTF-8; the NUL check below would catch it with a misleading message, so name it instead. */
  if (len >= 2 && (memcmp (text, "\xff\xfe", 2) == 0 || memcmp (text, "\xfe\xff", 2) == 0)) {
    ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "the file is UTF-16 text; save it as UTF-8");
    return NULL;
  }
  /* A NUL would end the C string early and hide the rest of the file from the parser: refuse it, located. */
  if (strlen (text) != len) {
    int line, col;
    offset_to_mark (text, len, strlen (text), &line, &col);
    ps_error_located (error, PS_ERROR_DATA, path, line, col, "NUL byte: not a YAML text file");
    return NULL;
  }
  return ytree_load_string (path, text, 0, error);
}
