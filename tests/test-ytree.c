/* test-ytree.c — ytree and error.h as units: the located tree (every node's line and column, worked out by hand
 * from the texts below), the guards of ytree.h, include merging, and the parts and did-you-mean of error.h. */
#include <check.h>
#include <string.h>

#include "app/config/config_private.h"
#include "app/base/error.h"
#include "app/config/ytree.h"
#include "tests/common.h"

static YNode *
load_ok (const char *text)
{
  g_autoptr (GError) e = NULL;
  YNode *n = ytree_load_string ("t.yaml", text, 0, &e);
  ck_assert_msg (n != NULL, "%s", e ? e->message : "empty");
  return n;
}

/* The message of a text ytree must refuse, which must start with LINE:COL of t.yaml. */
static char *
load_bad (const char *text, const char *where)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (YNode) n = ytree_load_string ("t.yaml", text, 0, &e);
  ck_assert_msg (n == NULL && e, "accepted: %s", text);
  ck_assert_int_eq (e->code, PS_ERROR_DATA);
  g_autofree char *prefix = g_strdup_printf ("t.yaml:%s: error: ", where);
  ck_assert_msg (g_str_has_prefix (e->message, prefix), "'%s' does not start with '%s'", e->message, prefix);
  return g_strdup (e->message);
}

#define ASSERT_AT(n, l, c)                                                                                     \
  do {                                                                                                         \
    ck_assert_int_eq ((n)->line, (l));                                                                         \
    ck_assert_int_eq ((n)->col, (c));                                                                          \
  } while (0)

/* "a: 1" puts the value at column 4; the nested mapping's key "c" is on line 3 after two spaces (column 3), and
 * its flow sequence opens at column 6, its second item "y" at column 10. */
START_TEST (test_locations)
{
  g_autoptr (YNode) t = load_ok ("a: 1\nb:\n  c: [x, \"y\"]\n");
  ck_assert_int_eq (t->kind, YNODE_MAP);
  ck_assert_int_eq (t->keys->len, 2);
  ASSERT_AT ((YNode *) t->keys->pdata[0], 1, 1);
  ASSERT_AT (ytree_map_get (t, "a"), 1, 4);
  ck_assert_str_eq (ytree_map_get (t, "a")->value, "1");
  YNode *b = ytree_map_get (t, "b");
  ASSERT_AT (ytree_map_key_node (b, "c"), 3, 3);
  YNode *c = ytree_map_get (b, "c");
  ck_assert_int_eq (c->kind, YNODE_SEQ);
  ASSERT_AT (c, 3, 6);
  YNode *x = c->items->pdata[0], *y = c->items->pdata[1];
  ASSERT_AT (y, 3, 10);
  /* Only unquoted scalars may be numbers or booleans (config_values.c relies on it). */
  ck_assert (x->plain);
  ck_assert (!y->plain);
  ck_assert_str_eq (ytree_kind_name (c->kind), "a sequence");
}
END_TEST

/* A --set value is parsed alone; col_offset shifts line 1 so columns count within KEY=VALUE. */
START_TEST (test_col_offset)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (YNode) n = ytree_load_string ("--set k=[1, 2]", "[1, 2]", 2, &e);
  ck_assert (n);
  ASSERT_AT (n, 1, 3);
  ASSERT_AT ((YNode *) n->items->pdata[1], 1, 7);
  /* An empty document is no error: callers decide. */
  g_autoptr (YNode) empty = ytree_load_string ("t.yaml", "# nothing\n", 0, &e);
  ck_assert (empty == NULL && e == NULL);
}
END_TEST

/* ytree_load_string() takes a single plain scalar without libyaml. A trailing space keeps a text off that path
 * and means nothing to YAML (a plain scalar ends before it), so each text and text + " " must give the same node:
 * every key's default and the values a --set or a file uses most, at two column offsets. */
static void
assert_same_scalar (const char *text, int col_offset)
{
  g_autoptr (GError) e1 = NULL, e2 = NULL;
  g_autofree char *spaced = g_strconcat (text, " ", NULL);
  g_autoptr (YNode) a = ytree_load_string ("t.yaml", text, col_offset, &e1);
  g_autoptr (YNode) b = ytree_load_string ("t.yaml", spaced, col_offset, &e2);
  ck_assert_msg ((a == NULL) == (b == NULL) && (e1 == NULL) == (e2 == NULL), "'%s': one path failed", text);
  if (!a)
    return;
  ck_assert_msg (a->kind == b->kind && a->plain == b->plain && a->line == b->line && a->col == b->col,
                 "'%s': kind %d/%d plain %d/%d at %d:%d/%d:%d", text, a->kind, b->kind, a->plain, b->plain, a->line,
                 a->col, b->line, b->col);
  ck_assert_str_eq (a->origin, b->origin);
  if (a->kind == YNODE_SCALAR)
    ck_assert_str_eq (a->value, b->value);
}

START_TEST (test_plain_scalar_path)
{
  static const char *const texts[] = { "128", "0", "-1", "+5", "1e-12", "2.5e9", ".5", "-.5", "0x10", "true",
                                       "False", "null", "Null", "write", "svgx_g2_x8", "a-b.c_d", "-", "--",
                                       "---", "...", "-x", ".inf", "~", "'8'", "\"8\"", "[1, 2]", "{a: 1}",
                                       "a: b", "#c", "&a 1", "!!str 8", "8 # c", "1.5.6" };
  for (size_t i = 0; i < G_N_ELEMENTS (texts); i++)
    for (int off = 0; off <= 7; off += 7)
      assert_same_scalar (texts[i], off);
  for (size_t i = 0; i < cfg_n_keys; i++)
    if (cfg_keys[i].dflt && cfg_keys[i].dflt[0])
      assert_same_scalar (cfg_keys[i].dflt, 0);
  /* By hand: a plain number is a plain scalar at 1:1 (1:8 after a 7-column "KEY=" of a --set). */
  g_autoptr (YNode) n = ytree_load_string ("--set k=8", "128", 7, NULL);
  ck_assert (n && n->kind == YNODE_SCALAR && n->plain);
  ck_assert_str_eq (n->value, "128");
  ASSERT_AT (n, 1, 8);
}
END_TEST

/* The guards, each located where the offence stands. */
START_TEST (test_refused)
{
  g_autofree char *dup = load_bad ("a: 1\nb: 2\na: 3\n", "3:1");
  ck_assert_msg (strstr (dup, "duplicate key 'a' (first defined at line 1)"), "%s", dup);
  g_autofree char *anchor = load_bad ("a: &x 1\nb: *x\n", "1:4");
  ck_assert_msg (strstr (anchor, "anchor '&x'"), "%s", anchor);
  g_autofree char *tag = load_bad ("a: !!str 8\n", "1:4");
  ck_assert_msg (strstr (tag, "tag"), "%s", tag);
  g_autofree char *two = load_bad ("a: 1\n---\nb: 2\n", "2:1");
  ck_assert_msg (strstr (two, "more than one YAML document"), "%s", two);
  g_autofree char *key = load_bad ("[a]: 1\n", "1:1");
  ck_assert_msg (strstr (key, "mapping keys must be scalars"), "%s", key);
  /* The outermost node has depth 0, so YTREE_MAX_DEPTH + 2 nested sequences put the innermost at depth
   * YTREE_MAX_DEPTH + 1, one too deep; it opens at column YTREE_MAX_DEPTH + 2. */
  g_autoptr (GString) deep = g_string_new (NULL);
  for (int i = 0; i < YTREE_MAX_DEPTH + 2; i++)
    g_string_append_c (deep, '[');
  for (int i = 0; i < YTREE_MAX_DEPTH + 2; i++)
    g_string_append_c (deep, ']');
  g_autofree char *at = g_strdup_printf ("1:%d", YTREE_MAX_DEPTH + 2);
  g_autofree char *nest = load_bad (deep->str, at);
  ck_assert_msg (strstr (nest, "nesting deeper than"), "%s", nest);
}
END_TEST

/* Include semantics: mappings merge key by key and keep the first position of a key; lists are replaced. */
START_TEST (test_merge)
{
  g_autoptr (YNode) base = load_ok ("a: {x: 1, y: 2}\nl: [1, 2, 3]\nk: 0\n");
  YNode *top = load_ok ("l: [9]\na: {y: 5, z: 6}\nn: 7\n");
  ytree_merge (base, top);
  ck_assert_int_eq (base->keys->len, 4);
  ck_assert_str_eq (((YNode *) base->keys->pdata[0])->value, "a");
  ck_assert_str_eq (((YNode *) base->keys->pdata[3])->value, "n");
  YNode *a = ytree_map_get (base, "a");
  ck_assert_str_eq (ytree_map_get (a, "x")->value, "1");
  ck_assert_str_eq (ytree_map_get (a, "y")->value, "5");
  ck_assert_str_eq (ytree_map_get (a, "z")->value, "6");
  ck_assert_int_eq (ytree_map_get (base, "l")->items->len, 1);
  /* take removes the key; copy is deep (freeing the original leaves the copy whole). */
  g_autoptr (YNode) k = ytree_map_take (base, "k");
  ck_assert_str_eq (k->value, "0");
  ck_assert_ptr_null (ytree_map_get (base, "k"));
  g_autoptr (YNode) copy = ytree_copy (a);
  ytree_map_set (base, "a", ytree_scalar_new ("x", 1, 1, "gone"), NULL);
  ck_assert_str_eq (ytree_map_get (copy, "z")->value, "6");
}
END_TEST

/* error.h: an error keeps its parts beside its line, and ytree_error() locates at a node. */
START_TEST (test_error_parts)
{
  YNode at = { .origin = "dir/f.yaml", .line = 7, .col = 3 };
  g_autoptr (GError) e = NULL;
  ytree_error (&e, PS_ERROR_DATA, &at, "bad %s", "value\n");
  ck_assert_str_eq (e->message, "dir/f.yaml:7:3: error: bad value\\n");
  ck_assert_str_eq (ps_error_text (e), "bad value\\n");
  g_autofree char *loc = ps_error_location (e);
  ck_assert_str_eq (loc, "dir/f.yaml:7:3");
  ck_assert_str_eq (ps_error_file (e), "dir/f.yaml");
  ck_assert_int_eq (ps_error_set_index (e), -1);
  /* The parts survive a copy (GError extended domains copy their private data). */
  g_autoptr (GError) c = g_error_copy (e);
  ps_error_mark_set (c, 2);
  ck_assert_int_eq (ps_error_set_index (c), 2);
  ck_assert_str_eq (ps_error_text (c), "bad value\\n");
  g_autoptr (GError) plain = NULL;
  ps_error_plain (&plain, PS_ERROR_USAGE, "no");
  ck_assert_str_eq (plain->message, "pciesim: error: no");
  ck_assert_ptr_null (ps_error_location (plain));
  ck_assert_str_eq (ps_error_text (plain), "no");
  /* Another domain's error is all text, unlocated. */
  g_autoptr (GError) other = g_error_new_literal (G_FILE_ERROR, G_FILE_ERROR_NOENT, "gone");
  ck_assert_str_eq (ps_error_text (other), "gone");
  ck_assert_int_eq (ps_error_set_index (other), -1);
}
END_TEST

/* Levenshtein by hand: kitten -> sitting is 3 (k/s, e/i, +g). The allowance is MAX (2, len / per_edit). */
START_TEST (test_closest)
{
  ck_assert_uint_eq (ps_edit_distance ("kitten", "sitting"), 3);
  ck_assert_uint_eq (ps_edit_distance ("", "abc"), 3);
  ck_assert_uint_eq (ps_edit_distance ("lanes", "lanes"), 0);
  const char *words[] = { "lanes", "gen", "max_payload", NULL };
  ck_assert_str_eq (ps_closest (words, "lans", 3), "lanes");
  /* "max_paylod" is 1 edit away; "xyz" is 3 from "gen", beyond MAX (2, 1). */
  ck_assert_str_eq (ps_closest (words, "max_paylod", 3), "max_payload");
  ck_assert_ptr_null (ps_closest (words, "xyz", 3));
  /* A tie goes to the earlier word: "gan" is 1 from "gen" and 1 from "gaN"-like "gun" below. */
  const char *tie[] = { "gen", "gun", NULL };
  ck_assert_str_eq (ps_closest (tie, "gan", 3), "gen");
  /* 12 letters at a quarter allow 3 edits, at a third 4: "abcdefghijkl" vs "abcdefghmnop" is 4. */
  const char *one[] = { "abcdefghijkl", NULL };
  ck_assert_ptr_null (ps_closest (one, "abcdefghmnop", 4));
  ck_assert_str_eq (ps_closest (one, "abcdefghmnop", 3), "abcdefghijkl");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("ytree");
  TCase *tc = tcase_create ("ytree");
  tcase_add_test (tc, test_locations);
  tcase_add_test (tc, test_col_offset);
  tcase_add_test (tc, test_plain_scalar_path);
  tcase_add_test (tc, test_refused);
  tcase_add_test (tc, test_merge);
  tcase_add_test (tc, test_error_parts);
  tcase_add_test (tc, test_closest);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
