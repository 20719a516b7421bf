/* test-bad.c — the bad-input corpus (tests/bad/, docs/bad-input.md) run end to end through the real binary.
 *
 * Each tests/bad/NAME.yaml states what pciesim must do with it on its first line, or in NAME.yaml.expect when
 * the file cannot carry a comment (empty, binary, UTF-16, a BOM that must come first):
 *
 *     # expect: STATUS WHERE [TEXT]
 *
 * STATUS is the exit status; WHERE is LINE:COL in NAME.yaml itself, PATH:LINE:COL when the error is in an
 * included file (PATH as pciesim prints it, relative to tests/bad/), or '-' for an unlocated "pciesim: error:";
 * TEXT, if given, must appear in the message. The expectations were worked out by hand from the file's bytes
 * (1-based lines and columns; the header comment is line 1); the reasoning is in each file's second line.
 *
 * For every case pciesim runs in tests/bad/ with --output into an empty directory, and the test asserts: the
 * exit status, stderr being exactly one line that starts with "WHERE: error: ", TEXT, and the directory still
 * being empty (a failed run never leaves a report behind). Inputs too big or too odd to commit (over 1 MiB,
 * a directory, a missing file, a 300 kB key) are generated here and held to the same rules. */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "app/config/ytree.h"
#define TMPDIR_TEMPLATE "pciesim-test-bad-gen-XXXXXX"
#include "tests/common.h"

/* The committed corpus: file names in tests/bad/, sorted, filled in by main() before the runner forks. */
static GPtrArray *corpus;
static char *bad_dir;

typedef struct {
  int status;
  char *where; /* "-" or [PATH:]LINE:COL */
  char *text; /* may be empty */
} Expect;

static void
expect_clear (Expect *e)
{
  g_free (e->where);
  g_free (e->text);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Expect, expect_clear)

/* Parse "# expect: STATUS WHERE [TEXT]" from the sidecar if there is one, else from the file's first line. */
static void
read_expect (const char *name, Expect *out)
{
  g_autofree char *sidecar = g_strconcat (bad_dir, "/", name, ".expect", NULL);
  g_autofree char *file = g_build_filename (bad_dir, name, NULL);
  g_autofree char *text = NULL;
  ck_assert_msg (g_file_get_contents (g_file_test (sidecar, G_FILE_TEST_EXISTS) ? sidecar : file, &text, NULL, NULL),
                 "%s: cannot read", name);
  const char *p = text;
  ck_assert_msg (g_str_has_prefix (p, "# expect: "), "%s: no '# expect:' line (docs/bad-input.md)", name);
  p += strlen ("# expect: ");
  g_autofree char *line = g_strndup (p, strcspn (p, "\r\n"));
  g_auto (GStrv) f = g_strsplit (line, " ", 3);
  ck_assert_msg (f[0] && f[1], "%s: '# expect: %s' lacks STATUS WHERE", name, line);
  out->status = atoi (f[0]);
  out->where = g_strdup (f[1]);
  out->text = g_strdup (f[2] ? f[2] : "");
}

/* pciesim CONFIG --output OUTDIR/report.txt, run in `cwd`; OUTDIR is made fresh and must stay empty. */
static void
run_pciesim (TestRun *r, const char *cwd, const char *config, const char *label)
{
  g_autofree char *outdir = tmpdir_new ("pciesim-test-bad-XXXXXX");
  g_autofree char *output = g_build_filename (outdir, "report.txt", NULL);
  run_program (r, NULL, cwd, (const char *const[]) { config, "--output", output, NULL });
  g_autoptr (GDir) d = g_dir_open (outdir, 0, NULL);
  const char *left = d ? g_dir_read_name (d) : NULL;
  ck_assert_msg (left == NULL, "%s: a failed run left '%s' in the output directory", label, left);
  g_rmdir (outdir);
}

/* Status, one stderr line beginning "PREFIX: error: " (or "pciesim: error: " for "-"), and TEXT in it. */
static void
assert_rejected (const TestRun *r, const char *label, const char *config, const Expect *x)
{
  ck_assert_msg (r->status == x->status, "%s: exit status %d, expected %d; stderr: %s", label, r->status, x->status,
                 r->err);
  const char *nl = strchr (r->err, '\n');
  ck_assert_msg (nl && nl[1] == '\0', "%s: stderr is not exactly one line: '%s'", label, r->err);
  g_autofree char *prefix = NULL;
  if (strcmp (x->where, "-") == 0)
    prefix = g_strdup ("pciesim: error: ");
  else if (strchr (x->where, ':') != strrchr (x->where, ':')) /* PATH:LINE:COL */
    prefix = g_strdup_printf ("%s: error: ", x->where);
  else
    prefix = g_strdup_printf ("%s:%s: error: ", config, x->where);
  ck_assert_msg (g_str_has_prefix (r->err, prefix), "%s: stderr '%s' does not start with '%s'", label, r->err,
                 prefix);
  ck_assert_msg (strstr (r->err, x->text), "%s: stderr '%s' does not mention '%s'", label, r->err, x->text);
}

START_TEST (test_corpus_size)
{
  /* Issue #7 asks for at least 30 distinct bad files; a lost directory must not pass as "nothing failed". */
  ck_assert_msg (corpus->len >= 30, "tests/bad/ holds %u cases, expected at least 30", corpus->len);
}
END_TEST

START_TEST (test_corpus)
{
  const char *name = corpus->pdata[_i];
  g_auto (Expect) x = { 0 };
  read_expect (name, &x);
  g_auto (TestRun) r;
  run_pciesim (&r, bad_dir, name, name);
  assert_rejected (&r, name, name, &x);
}
END_TEST

/* --- generated inputs ----------------------------------------------------------------------------------- */

static void
write_gen (const char *name, const GString *text)
{
  g_autofree char *path = g_build_filename (tmpdir_root, name, NULL);
  ck_assert (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
}

static void
check_generated (const char *config, int status, const char *where, const char *text)
{
  Expect x = { status, (char *) where, (char *) text };
  g_auto (TestRun) r;
  run_pciesim (&r, tmpdir_root, config, config);
  assert_rejected (&r, config, config, &x);
}

#define MINIMAL "link:\n  gen: 1\n  lanes: 1\n"

START_TEST (test_over_1mib)
{
  /* A valid config padded with comments to one byte over the limit: refused on size alone, before parsing. */
  g_autoptr (GString) s = g_string_new (MINIMAL);
  while (s->len < YTREE_MAX_FILE_BYTES)
    g_string_append (s, "# padding padding padding padding padding padding padding padding padding padding\n");
  g_string_truncate (s, YTREE_MAX_FILE_BYTES);
  g_string_append_c (s, '\n');
  write_gen ("big.yaml", s);
  check_generated ("big.yaml", 65, "1:1", "bytes");
}
END_TEST

START_TEST (test_exactly_1mib_loads)
{
  /* The limit is inclusive: the same padding to exactly YTREE_MAX_FILE_BYTES is read and then fails only on
   * the unknown key at its end. One comment line of the right length comes first, so bogus is on line 5. */
  gsize tail = strlen ("\n" MINIMAL "bogus: 1\n");
  g_autoptr (GString) s = g_string_new ("#");
  while (s->len < YTREE_MAX_FILE_BYTES - tail)
    g_string_append_c (s, 'x');
  g_string_append (s, "\n" MINIMAL "bogus: 1\n");
  ck_assert_uint_eq (s->len, YTREE_MAX_FILE_BYTES);
  write_gen ("limit.yaml", s);
  check_generated ("limit.yaml", 65, "5:1", "unknown key 'bogus'");
}
END_TEST

START_TEST (test_directory)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "adir.yaml", NULL);
  ck_assert_int_eq (g_mkdir (dir, 0700), 0);
  check_generated ("adir.yaml", 66, "-", "not a regular file");
}
END_TEST

START_TEST (test_missing)
{
  check_generated ("no-such-config.yaml", 66, "-", "no-such-config.yaml");
}
END_TEST

/* MINIMAL + `lead` + `n` copies of `fill` + `trail` as NAME, expected to fail at `where` mentioning `text`. */
static void
check_long (const char *name, const char *lead, char fill, int n, const char *trail, const char *where,
            const char *text)
{
  g_autoptr (GString) s = g_string_new (MINIMAL);
  g_string_append (s, lead);
  for (int i = 0; i < n; i++)
    g_string_append_c (s, fill);
  g_string_append (s, trail);
  write_gen (name, s);
  check_generated (name, 65, where, text);
}

START_TEST (test_long_key)
{
  /* libyaml caps implicit keys at 1024 characters; an explicit "? " key has no cap. A 300 kB key on line 4
   * (after "  ? ", column 5) must come back as an unknown key, located, in one line, without a long stall. */
  check_long ("longkey.yaml", "  ? ", 'k', 300000, "\n  : 1\n", "4:5", "unknown key 'link.kkkk");
}
END_TEST

START_TEST (test_long_line)
{
  /* A 500 kB value on one line (line 4, after "  ecrc: ", column 9). */
  check_long ("longline.yaml", "  ecrc: ", 'y', 500000, "\n", "4:9", "true or false");
}
END_TEST

START_TEST (test_deep_flood)
{
  /* 1 MiB of '[' under name: on line 1: the 33rd '[' (column 6 + 33) is the first too-deep node. */
  g_autoptr (GString) s = g_string_new ("name: ");
  while (s->len < YTREE_MAX_FILE_BYTES - 1)
    g_string_append_c (s, '[');
  g_string_append_c (s, '\n');
  write_gen ("deep.yaml", s);
  check_generated ("deep.yaml", 65, "1:39", "nesting deeper");
}
END_TEST

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
main (void)
{
  const char *root = g_getenv ("PCIESIM_SOURCE_ROOT");
  if (!root) {
    fprintf (stderr, "PCIESIM_SOURCE_ROOT must be set (tests/meson.build does)\n");
    return 1;
  }
  bad_dir = g_build_filename (root, "tests", "bad", NULL);
  corpus = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (bad_dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".yaml"))
      g_ptr_array_add (corpus, g_strdup (name));
  g_ptr_array_sort (corpus, compare_names);

  Suite *s = suite_create ("bad");
  TCase *tc = tcase_create ("corpus");
  tcase_add_test (tc, test_corpus_size);
  tcase_add_loop_test (tc, test_corpus, 0, (int) corpus->len);
  suite_add_tcase (s, tc);
  TCase *gen = tcase_create ("generated");
  tcase_add_unchecked_fixture (gen, tmpdir_setup, tmpdir_teardown);
  /* Each of these reads or scans about 1 MiB; under ASan that is seconds, not milliseconds. */
  tcase_set_timeout (gen, 30);
  tcase_add_test (gen, test_over_1mib);
  tcase_add_test (gen, test_exactly_1mib_loads);
  tcase_add_test (gen, test_directory);
  tcase_add_test (gen, test_missing);
  tcase_add_test (gen, test_long_key);
  tcase_add_test (gen, test_long_line);
  tcase_add_test (gen, test_deep_flood);
  suite_add_tcase (s, gen);
  run_suite (s);
  g_ptr_array_unref (corpus);
  g_free (bad_dir);
  return 0;
}
