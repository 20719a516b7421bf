/* test-cli.c — the real pciesim binary as a user or script meets it: exit statuses (sysexits), one-line error
 * messages on stderr, --output that never leaves a partial or clobbered file, and the JSON contract of schema 1
 * (docs/reference/design.md). PCIESIM_EXE and PCIESIM_SOURCE_ROOT come from tests/meson.build. */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "pciesim-version.h"
#define TMPDIR_TEMPLATE "pciesim-test-cli-XXXXXX"
#include "tests/common.h"
#include "app/config/config.h"
#include "app/base/error.h"

/* A calibrated device (AN-456 Table 8): it has a published: block, and it runs all three modes by default. */
#define CONFIG "configs/svgx_g2_x8.yaml"

/* Entries in a case's directory: the way to see that an atomic write left no temporary file behind, whatever
 * name the temporary was given. */
static guint
count_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (d && g_dir_read_name (d))
    n++;
  return n;
}

/* The run's CSV opens with '#' comment lines (what was run, docs/output.md "Output formats"); the table follows
 * them. */
static const char *
csv_table (const char *csv)
{
  while (*csv == '#') {
    const char *nl = strchr (csv, '\n');
    ck_assert_msg (nl, "CSV ends inside its comments");
    csv = nl + 1;
  }
  return csv;
}

/* --- help, version, usage errors ----------------------------------------------------------------------- */

START_TEST (test_help)
{
  g_auto (TestRun) r;
  PCIESIM (&r, "--help");
  ck_assert_int_eq (r.status, 0);
  /* The subcommands are only discoverable through --help, so it must name them. */
  ck_assert_msg (strstr (r.out, "pciesim CONFIG") && strstr (r.out, "pciesim validate") && strstr (r.out, "pciesim keys"),
                 "--help does not list the commands:\n%s", r.out);
  /* The three options a scripted run needs: output format, overrides and destination. */
  ck_assert_msg (strstr (r.out, "--format") && strstr (r.out, "--set") && strstr (r.out, "--output"), "%s", r.out);
}
END_TEST

/* bw_rdwr's Gb/s adds its two directions, each within the link's limit for its own TLPs: the limit printed beside the
 * total says it is per direction, and each direction's figure is below it (a Gen3 x8 link: 8 GT/s x 8 lanes x
 * 128/130 = 63.0 Gb/s of symbols, less than that of data). */
START_TEST (test_rdwr_limit_per_direction)
{
  g_auto (TestRun) r;
  PCIESIM (&r, "configs/nfp6000_g3_x8.yaml", "--set", "microbench.test=bw_rdwr", "--set",
           "microbench.transfer_bytes=128");
  ck_assert_msg (r.status == 0, "%s", r.err);
  double total, rd, wr, limit;
  const char *row = strstr (r.out, "\nbw_rdwr "), *lim = strstr (r.out, "protocol limit ");
  ck_assert_msg (row && lim && sscanf (row, "\nbw_rdwr %*d %lf %lf %lf", &total, &rd, &wr) == 3
                 && sscanf (lim, "protocol limit %lf", &limit) == 1, "%s", r.out);
  ck_assert_msg (g_str_has_prefix (strstr (lim, "Gb/s"), "Gb/s per direction"), "%s", r.out);
  ck_assert (rd <= limit && wr <= limit && limit < 63.016 && total > limit);
}
END_TEST

START_TEST (test_version)
{
  g_auto (TestRun) r;
  PCIESIM (&r, "--version");
  ck_assert_int_eq (r.status, 0);
  ck_assert_str_eq (r.err, "");
  /* The project version the build generated (not a literal, so a release bump cannot make this test stale), then
   * the git describe of the sources, asked of git here; a tree outside git (a tarball) has only the version.
   * Whether the tree is "-dirty" may change between the build and this test (a file saved meanwhile), so that
   * suffix is left out of the comparison: what must agree is the commit. */
  g_autofree char *describe = NULL;
  int wait_status = 0;
  const char *git[] = { "git", "-C", g_getenv ("PCIESIM_SOURCE_ROOT"), "describe", "--tags", "--always", NULL };
  g_autofree char *expected = NULL;
  if (g_spawn_sync (NULL, (char **) git, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                    &describe, NULL, &wait_status, NULL)
      && WIFEXITED (wait_status) && WEXITSTATUS (wait_status) == 0)
    expected = g_strdup_printf ("pciesim %s (%s)\n", PCIESIM_VERSION, g_strchomp (describe));
  else
    expected = g_strdup ("pciesim " PCIESIM_VERSION "\n");
  g_autoptr (GString) out = g_string_new (r.out);
  g_string_replace (out, "-dirty)", ")", 1);
  ck_assert_str_eq (out->str, expected);
}
END_TEST

typedef struct {
  const char *args[5];
  const char *needle;
} UsageCase;

/* One row per kind of command-line mistake: nothing given, an unknown option, a bad --format or --mode word,
 * two configs, a --set without '=', and an option a subcommand does not take (keys prints no JSON). Where the
 * user typed something wrong, the needle is that word, so the message shows what to fix. */
static const UsageCase usage_cases[] = {
  { { NULL }, "no config file given" },
  { { "--bogus", CONFIG }, "--bogus" },
  { { "--format", "xml", CONFIG }, "'xml'" },
  { { "--mode", "copy", CONFIG }, "'copy'" },
  { { CONFIG, CONFIG }, "more than one config" },
  { { "--set", "foo", CONFIG }, "--set foo" },
  { { "keys", "--format", "json" }, "usage: pciesim keys" },
  /* A subcommand's mistake points at that subcommand's --help (issue #12 item 13). */
  { { "keys", "--format", "json" }, "(see pciesim keys --help)" },
  { { "validate", "--bogus" }, "Unknown option --bogus (see pciesim validate --help)" },
  { { "sweep" }, "no scenario file given (see pciesim sweep --help)" },
  { { "merge" }, "(see pciesim merge --help)" },
  { { "import" }, "usage: pciesim import lspci DUMP" },
  { { "import", "lspci" }, "no lspci dump given (see pciesim import --help)" },
  { { "--bogus", CONFIG }, "(see pciesim --help)" },
  { { "--mode", "read,copy", CONFIG }, "'copy'" },
  { { "help", "frobnicate" }, "help: no command 'frobnicate'" },
  /* Inputs that would be ignored (issue #26): a negative seed, --mode where the config runs no modes. */
  { { "--seed", "-1", CONFIG }, "--seed must not be negative" },
  { { "sweep", "--seed", "-1", "scenarios/tags_vs_payload.yaml" }, "--seed must not be negative" },
  { { "--mode", "read", "configs/fabric_shared_g3_x8.yaml" }, "a fabric runs its flows" },
  { { "--mode", "write", "configs/nfp6000_g3_x8.yaml" }, "the microbenchmark runs microbench.test" },
};

START_TEST (test_usage_errors)
{
  const UsageCase *c = &usage_cases[_i];
  g_auto (TestRun) r;
  PCIESIM (&r, c->args[0], c->args[1], c->args[2], c->args[3]);
  ck_assert_msg (r.status == PS_ERROR_USAGE, "case %d: status %d, want 64 (%s)", _i, r.status, r.err);
  /* Unlocated: the fault is in the command line, not at a line of any file. */
  assert_one_error_line (&r, "pciesim: error: ");
  ck_assert_msg (strstr (r.err, c->needle), "case %d: '%s' does not say '%s'", _i, r.err, c->needle);
  /* Nothing on stdout: `pciesim … > report` must not leave something that looks like a report. */
  ck_assert_msg (r.out[0] == '\0', "case %d: wrote to stdout on error: %s", _i, r.out);
}
END_TEST

/* A --trace-window that opens after the run has ended would give a trace without events: a warning says so, and
 * the run still succeeds (issue #26). The Gen2 x8 read of 20 x 100 KB ends well before 1 s. */
START_TEST (test_trace_window_past_end)
{
  g_autofree char *path = g_build_filename (tmpdir_root, "window.vcd", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, CONFIG, "--mode", "read", "--trace", path, "--trace-window", "1000000000:");
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  ck_assert_msg (strstr (r.err, "pciesim: warning: --trace-window starts at 1000000000.000 ns, after the traced run "
                         "ended") != NULL, "%s", r.err);
  g_auto (TestRun) ok;
  PCIESIM (&ok, CONFIG, "--mode", "read", "--trace", path, "--trace-window", "1000:");
  ck_assert_msg (ok.status == 0 && ok.err[0] == '\0', "status %d: %s", ok.status, ok.err);
}
END_TEST

/* A fabric's report carries what a one-link report has (issue #26): the links as CSV rows beside the flows, each
 * link's error counts when link.ber > 0, and no top-level link summary, which would describe none of its links.
 * configs/fabric_shared_g3_x8.yaml has 8 flows and 9 links (host-sw uplink, sw-e1 … sw-e8). */
START_TEST (test_fabric_report_parts)
{
  const char *cfg = "configs/fabric_shared_g3_x8.yaml";
  g_auto (TestRun) csv;
  PCIESIM (&csv, cfg, "--format", "csv");
  ck_assert_msg (csv.status == 0, "%s", csv.err);
  g_auto (GStrv) lines = g_strsplit (csv.out, "\n", -1);
  guint rows = 0, flows = 0, links = 0;
  for (guint i = 0; lines[i]; i++) {
    if (lines[i][0] == '#' || lines[i][0] == '\0')
      continue;
    g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
    ck_assert_msg (g_strv_length (f) == 34, "row %u has %u fields: %s", rows, g_strv_length (f), lines[i]);
    if (rows++ == 0)
      continue; /* the header */
    flows += f[1][0] != '\0';
    links += f[13][0] != '\0';
    /* Each flow's verdict (issue #25): the shared uplink's egress port carries the other seven. */
    if (f[1][0] != '\0')
      ck_assert_msg (strcmp (f[28], "switch_port") == 0, "%s", lines[i]);
    ck_assert_msg ((f[1][0] != '\0') != (f[13][0] != '\0'), "a row is a flow or a link: %s", lines[i]);
  }
  ck_assert_uint_eq (flows, 8);
  ck_assert_uint_eq (links, 9);

  g_auto (TestRun) js;
  PCIESIM (&js, cfg, "--format", "json");
  ck_assert_msg (js.status == 0, "%s", js.err);
  /* (A flow's limited_by names its path's protocol limit: that one is the flow's.) */
  ck_assert_msg (strstr (js.out, "\n  \"link\":") == NULL && strstr (js.out, "\n  \"protocol_limit_mbps\"") == NULL,
                 "a fabric's JSON has a top-level link summary");
  ck_assert_msg (strstr (js.out, "\"errors\"") == NULL, "errors reported without link.ber");
  g_auto (TestRun) ber;
  PCIESIM (&ber, cfg, "--format", "json", "--set", "link.ber=1e-8", "--set", "switch.forwarding=store_and_forward");
  ck_assert_msg (ber.status == 0, "%s", ber.err);
  guint n = 0;
  for (const char *p = ber.out; (p = strstr (p, "\"errors\": {\"a_to_b\"")) != NULL; p++)
    n++;
  ck_assert_uint_eq (n, 9);
}
END_TEST

/* `pciesim help` used to exit 66 ("help: No such file or directory"): it is the default command's --help, and
 * `help COMMAND` that command's (issue #12 item 13). Each is compared with the --help it stands for. */
START_TEST (test_help_command)
{
  const char *const commands[] = { "", "validate", "keys", "sweep", "merge", "import", "fit", NULL };
  for (const char *const *c = commands; *c; c++) {
    g_auto (TestRun) h, want;
    if (**c) {
      PCIESIM (&h, "help", *c);
      PCIESIM (&want, *c, "--help");
    } else {
      PCIESIM (&h, "help");
      PCIESIM (&want, "--help");
    }
    ck_assert_msg (h.status == 0, "help %s: status %d: %s", *c, h.status, h.err);
    ck_assert_str_eq (h.out, want.out);
  }
}
END_TEST

/* -m read -m write kept only the last; the modes now form a set, given repeated or as a comma list (item 13). The
 * CSV rows name the figures that ran: read and write, not simultaneous. */
START_TEST (test_mode_list)
{
  const char *const forms[][4] = { { "-m", "read", "-m", "write" }, { "--mode", "read,write", NULL, NULL },
                                   { "-m", "write", "-m", "read,read" } };
  for (guint i = 0; i < G_N_ELEMENTS (forms); i++) {
    g_auto (TestRun) r;
    PCIESIM (&r, "configs/svgx_g1_x1.yaml", "--format", "csv", forms[i][0], forms[i][1], forms[i][2], forms[i][3]);
    ck_assert_msg (r.status == 0, "form %u: %s", i, r.err);
    const char *t = csv_table (r.out);
    ck_assert_msg (strstr (t, "\nsvgx_g1_x1,read,") && strstr (t, "\nsvgx_g1_x1,write,") &&
                     !strstr (t, "simultaneous"), "form %u:\n%s", i, t);
  }
}
END_TEST

/* A scenario given where a config belongs, and a config given to sweep, say what the file is and which command
 * takes it, located at the key that tells (scenarios/gen_width.yaml's base: is line 9; svgx_g1_x1.yaml's first
 * config section, link:, is line 5). */
START_TEST (test_wrong_kind_of_file)
{
  g_auto (TestRun) r;
  PCIESIM (&r, "scenarios/gen_width.yaml");
  ck_assert_int_eq (r.status, PS_ERROR_DATA);
  assert_one_error_line (&r, "scenarios/gen_width.yaml:9:1: error: this is a scenario file ('base:' is a scenario "
                             "key): run it with pciesim sweep scenarios/gen_width.yaml");
  g_auto (TestRun) c;
  PCIESIM (&c, "sweep", "configs/svgx_g1_x1.yaml");
  ck_assert_int_eq (c.status, PS_ERROR_DATA);
  assert_one_error_line (&c, "configs/svgx_g1_x1.yaml:5:1: error: this is a config file ('link:' is a config "
                             "section, not a scenario key): run it with pciesim configs/svgx_g1_x1.yaml");
}
END_TEST

/* --- input errors -------------------------------------------------------------------------------------- */

START_TEST (test_missing_config)
{
  g_auto (TestRun) r;
  PCIESIM (&r, "configs/no_such_config.yaml");
  /* 66, missing input: the command line is fine and the file is not there, so neither 64 nor 65. Unlocated,
   * since there is no line of a file to point at, but naming the path as given. */
  ck_assert_int_eq (r.status, PS_ERROR_NOINPUT);
  assert_one_error_line (&r, "pciesim: error: configs/no_such_config.yaml: ");
}
END_TEST

START_TEST (test_bad_data)
{
  g_autofree char *dir = case_dir ("bad-data");
  g_autofree char *path = write_file (dir, "bad.yaml", "link:\n  gen: 2\n  lanes: 3\n");
  g_auto (TestRun) r;
  PCIESIM (&r, path);
  ck_assert_int_eq (r.status, PS_ERROR_DATA);
  /* "  lanes: 3" -> line 3, column 10 ("  lanes: " is 9 characters). The whole message is compared: the allowed
   * widths are pcie-protocol.md §1's x1/x2/x4/x8/x16, and a wrong list would mislead the user. */
  g_autofree char *want = g_strdup_printf ("%s:3:10: error: link.lanes must be 1, 2, 4, 8, 12, 16 or 32 (got 3)\n", path);
  ck_assert_str_eq (r.err, want);
  /* The config is refused before anything runs, so no partial table may reach stdout. */
  ck_assert_str_eq (r.out, "");
}
END_TEST

START_TEST (test_bad_set)
{
  g_auto (TestRun) r;
  PCIESIM (&r, CONFIG, "--set", "link.lanes=3");
  ck_assert_int_eq (r.status, PS_ERROR_DATA);
  /* The --set is the location: its value starts at column 12 of "link.lanes=3". */
  assert_one_error_line (&r, "--set link.lanes=3:1:12: error: link.lanes must be");

  /* An unknown key is located at the key, column 1 of the --set text, with the nearest real key suggested. */
  g_auto (TestRun) r2;
  PCIESIM (&r2, CONFIG, "--set", "link.lans=8");
  ck_assert_int_eq (r2.status, PS_ERROR_DATA);
  assert_one_error_line (&r2, "--set link.lans=8:1:1: error: unknown key 'link.lans' (did you mean 'link.lanes'?)");

  /* A credit advertisement the spec forbids is bad data at load time (issue #12 item 9), located at the value:
   * 8 posted-data credits cannot hold one 256-byte TLP (the config's MPS), which needs 256 / 16 = 16. Before the
   * check this simulated until the deadlock watchdog and exited 70. "host.rx_credits.pd=" is 19 characters. */
  g_auto (TestRun) r3;
  PCIESIM (&r3, "configs/svgx_g2_x8.yaml", "--set", "host.rx_credits.pd=8");
  ck_assert_int_eq (r3.status, PS_ERROR_DATA);
  assert_one_error_line (&r3, "--set host.rx_credits.pd=8:1:20: error: host.rx_credits.pd (8) is below the spec "
                              "minimum of 16 credits");
  ck_assert_str_eq (r3.out, "");
}
END_TEST

/* --- --output ------------------------------------------------------------------------------------------ */

START_TEST (test_output_success)
{
  g_autofree char *dir = case_dir ("output-ok");
  g_autofree char *out = g_build_filename (dir, "report.csv", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, CONFIG, "--mode", "read", "--format", "csv", "--output", out);
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  /* With --output the report goes to the file alone, so a caller that also captures stdout gets no second copy. */
  ck_assert_str_eq (r.out, "");
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (out, &text, NULL, NULL));
  /* Same bytes as on stdout: the file is the report, and a CSV report is deterministic. */
  g_auto (TestRun) r2;
  PCIESIM (&r2, CONFIG, "--mode", "read", "--format", "csv");
  ck_assert_int_eq (r2.status, 0);
  ck_assert_str_eq (text, r2.out);
  ck_assert_uint_eq (count_entries (dir), 1); /* no temporary file left beside it */
}
END_TEST

/* A config's name is user text that lands inside CSV and Markdown rows: a comma, quote or '|' must stay inside
 * its cell (RFC 4180 quoting; Markdown's "\|"), and a control character is refused at load, located. */
#define ODD_NAME "x, \"y\" | z"

START_TEST (test_name_cells)
{
  /* --set name= reaches every writer the same way a name: key in a file would; the first CSV row starts with it. */
  g_auto (TestRun) run_csv;
  PCIESIM (&run_csv, CONFIG, "--mode", "read", "--format", "csv", "--set", "name=" ODD_NAME);
  ck_assert_msg (run_csv.status == 0, "status %d: %s", run_csv.status, run_csv.err);
  /* Expected by hand from RFC 4180: a field holding a comma or a quote is enclosed in quotes and each inner quote
   * doubled, so x, "y" | z becomes "x, ""y"" | z". The '|' means nothing to CSV and stays as it is. */
  const char *row = strchr (csv_table (run_csv.out), '\n');
  ck_assert_msg (row && g_str_has_prefix (row + 1, "\"x, \"\"y\"\" | z\",read,"), "csv: %s", run_csv.out);

  /* validate renders rows through its own writer, so it is checked too. --tolerance 1000 keeps its exit status
   * off the calibration's accuracy: only the cells are under test here. */
  g_auto (TestRun) val_csv;
  PCIESIM (&val_csv, "validate", "--format", "csv", "--tolerance", "1000", "--set", "name=" ODD_NAME, CONFIG);
  ck_assert_msg (val_csv.status == 0, "status %d: %s", val_csv.status, val_csv.err);
  ck_assert_msg (strstr (val_csv.out, "\n\"x, \"\"y\"\" | z\",read,"), "validate csv: %s", val_csv.out);

  g_auto (TestRun) val_md;
  PCIESIM (&val_md, "validate", "--format", "markdown", "--tolerance", "1000", "--set", "name=" ODD_NAME, CONFIG);
  ck_assert_msg (val_md.status == 0, "status %d: %s", val_md.status, val_md.err);
  /* In a Markdown table only '|' ends a cell, so only it is escaped (\|); comma and quotes pass through. */
  ck_assert_msg (strstr (val_md.out, "\n| x, \"y\" \\| z | DMA read |"), "validate markdown: %s", val_md.out);

  /* "a\tb" in double quotes is a YAML escape: the value holds a tab. The node starts at column 1 of the value. */
  g_auto (TestRun) bad;
  PCIESIM (&bad, CONFIG, "--set", "name=\"a\\tb\"");
  ck_assert_int_eq (bad.status, PS_ERROR_DATA);
  assert_one_error_line (&bad, "--set name=\"a\\tb\":1:6: error: name must be one line of printable text");
}
END_TEST

/* link.ecrc reaches the model: svgx_g1_x1's DMA write is wire-bound (its 64-bit datapath runs at 4x the x1 link)
 * and its MWrs carry 4-DW headers, so one DW of ECRC turns 280 wire bytes per 256-byte TLP into 284; the write
 * figure's protocol limit has the same 4-DW headers, so it moves by the same 280/284. Second CSV row, fields 3
 * and 6. */
static void
write_csv_figures (const char *ecrc, double *mbps, double *limit)
{
  g_autofree char *set = g_strconcat ("link.ecrc=", ecrc, NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "configs/svgx_g1_x1.yaml", "--mode", "write", "--format", "csv", "--set", set);
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  g_auto (GStrv) lines = g_strsplit (csv_table (r.out), "\n", 3);
  ck_assert (lines[0] && lines[1]);
  g_auto (GStrv) f = g_strsplit (lines[1], ",", -1);
  ck_assert_uint_ge (g_strv_length (f), 6);
  *mbps = g_ascii_strtod (f[2], NULL);
  *limit = g_ascii_strtod (f[5], NULL);
}

START_TEST (test_ecrc_key)
{
  double off, on, limit_off, limit_on;
  write_csv_figures ("false", &off, &limit_off);
  write_csv_figures ("true", &on, &limit_on);
  ck_assert_msg (fabs (on / off - 280.0 / 284.0) < 0.003, "write %.2f -> %.2f MB/s with ECRC, want x280/284", off,
                 on);
  /* Two decimals in the CSV: the ratio is exact to about 1e-4. */
  ck_assert_msg (fabs (limit_on / limit_off - 280.0 / 284.0) < 1e-4, "limit %.2f -> %.2f", limit_off, limit_on);
}
END_TEST

START_TEST (test_output_failure)
{
  g_autofree char *dir = case_dir ("output-fail");
  /* link.gen accepts 1..6 only: the config fails at load, before there is anything to write. */
  g_autofree char *bad = write_file (dir, "bad.yaml", "link:\n  gen: 9\n  lanes: 8\n");
  g_autofree char *out = g_build_filename (dir, "report.json", NULL);

  /* A failed run creates nothing… (JSON here, the default table format below: it must hold for every format.) */
  g_auto (TestRun) r;
  PCIESIM (&r, bad, "--format", "json", "--output", out);
  ck_assert_int_eq (r.status, PS_ERROR_DATA);
  ck_assert_msg (!g_file_test (out, G_FILE_TEST_EXISTS), "a failed run left %s", out);
  ck_assert_uint_eq (count_entries (dir), 1); /* only bad.yaml: no temporary file either */

  /* …and leaves an earlier report alone, for data and usage errors alike. */
  g_autofree char *keep = write_file (dir, "report.json", "earlier report\n");
  g_auto (TestRun) r2;
  PCIESIM (&r2, bad, "--output", out);
  ck_assert_int_eq (r2.status, PS_ERROR_DATA);
  /* A usage error is a command-line fault, found before --output is touched: the file must still be intact. */
  g_auto (TestRun) r3;
  PCIESIM (&r3, CONFIG, "--mode", "copy", "--output", out);
  ck_assert_int_eq (r3.status, PS_ERROR_USAGE);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (out, &text, NULL, NULL));
  ck_assert_str_eq (text, "earlier report\n");
  /* bad.yaml and the earlier report, nothing else: neither failed run left its temporary file. */
  ck_assert_uint_eq (count_entries (dir), 2);

  /* An output that cannot be created is EX_CANTCREAT, not a usage or data error. A missing directory makes it
   * uncreatable for any user, root in a container included, where a read-only mode bit would not. The message
   * is unlocated: no line of the config is at fault. */
  g_autofree char *nowhere = g_build_filename (dir, "no-such-dir", "report.json", NULL);
  g_auto (TestRun) r4;
  PCIESIM (&r4, CONFIG, "--mode", "read", "--output", nowhere);
  ck_assert_msg (r4.status == PS_ERROR_CANTCREAT, "status %d: %s", r4.status, r4.err);
  assert_one_error_line (&r4, "pciesim: error: ");
}
END_TEST

/* --- JSON contract ------------------------------------------------------------------------------------- */

/* Presence and type are asserted with the key's name, so a contract break fails with a message that names it
 * instead of a json-glib critical warning and a NULL dereference further on. */
static JsonObject *
member_object (JsonObject *o, const char *name)
{
  ck_assert_msg (json_object_has_member (o, name), "JSON lacks '%s'", name);
  JsonNode *n = json_object_get_member (o, name);
  ck_assert_msg (JSON_NODE_HOLDS_OBJECT (n), "'%s' is not an object", name);
  return json_node_get_object (n);
}

static double
member_number (JsonObject *o, const char *name)
{
  ck_assert_msg (json_object_has_member (o, name), "JSON lacks '%s'", name);
  JsonNode *n = json_object_get_member (o, name);
  GType t = json_node_get_value_type (n);
  /* A JSON number, not a string holding one: scripts read these fields with a JSON parser, not by eye. */
  ck_assert_msg (JSON_NODE_HOLDS_VALUE (n) && (t == G_TYPE_INT64 || t == G_TYPE_DOUBLE), "'%s' is not a number",
                 name);
  return json_node_get_double (n);
}

static void
assert_usage (JsonObject *usage)
{
  static const char *const dirs[] = { "upstream", "downstream" };
  static const char *const parts[] = { "payload", "tlp_overhead", "dllp", "ordered_sets", "idle" };
  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++) {
    JsonObject *o = member_object (usage, dirs[d]);
    double sum = 0;
    for (guint p = 0; p < G_N_ELEMENTS (parts); p++) {
      double f = member_number (o, parts[p]);
      /* Each part on its own, since a negative share (time counted backwards) can hide in a sum that is 1. */
      ck_assert_msg (f >= 0 && f <= 1, "%s.%s = %g is not a fraction", dirs[d], parts[p], f);
      sum += f;
    }
    /* report.h: the fractions of a direction's time sum to 1 (printed to 6 decimals). */
    ck_assert_msg (sum > 0.9999 && sum < 1.0001, "%s fractions sum to %g", dirs[d], sum);
  }
}

static JsonParser *
run_json (const char *mode)
{
  g_auto (TestRun) r;
  if (mode)
    PCIESIM (&r, CONFIG, "--format", "json", "--mode", mode);
  else
    PCIESIM (&r, CONFIG, "--format", "json");
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  JsonParser *p = json_parser_new ();
  g_autoptr (GError) e = NULL;
  ck_assert_msg (json_parser_load_from_data (p, r.out, -1, &e), "not JSON: %s\n%s", e ? e->message : "", r.out);
  /* design.md: one object per run, so a script can read it with a single parse. */
  ck_assert_msg (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p)), "JSON root is not an object");
  return p;
}

START_TEST (test_json_schema)
{
  g_autoptr (JsonParser) p = run_json (NULL);
  JsonObject *root = json_node_get_object (json_parser_get_root (p));
  ck_assert_int_eq (json_object_get_int_member (root, "schema"), 1);
  ck_assert_str_eq (json_object_get_string_member (root, "version"), PCIESIM_VERSION);
  /* The path as given on the command line, relative; and the config's name: key, which is the file's stem here. */
  ck_assert_str_eq (json_object_get_string_member (root, "config"), CONFIG);
  ck_assert_str_eq (json_object_get_string_member (root, "name"), "svgx_g2_x8");

  /* Echoed inputs, not results: Gen2 x8 from the config itself, MPS 256 and MRRS 512 from benchmarks/an456.yaml,
   * the AN-456 benchmark settings (published-calibration.md §1). An include or default lost on the way shows. */
  JsonObject *link = member_object (root, "link");
  ck_assert_int_eq (json_object_get_int_member (link, "gen"), 2);
  ck_assert_int_eq (json_object_get_int_member (link, "lanes"), 8);
  ck_assert_int_eq (json_object_get_int_member (link, "max_payload"), 256);
  ck_assert_int_eq (json_object_get_int_member (link, "max_read_request"), 512);

  double theoretical = member_number (root, "theoretical_mbps");
  double limit = member_number (root, "protocol_limit_mbps");
  /* The vendor formula leaves out DLLPs, ordered sets and lane padding that the protocol limit charges, so the
   * limit can never be above it (published-calibration.md §1). */
  ck_assert_msg (theoretical > 0 && limit > 0 && limit <= theoretical, "theoretical %g, limit %g", theoretical,
                 limit);
  /* Issue #12 item 2: the host file sets link.address_bits 64, so the DMA's MWrs carry 4-DW headers and the write
   * limit is 4000 MB/s of Gen2 x8 symbols x 1176/1180 (SKPs) x 256/280 = 3644.7; the read data comes back in
   * 3-DW CplDs, 256/276 of the same: 3697.6. JSON writes both with one decimal. */
  ck_assert_double_eq_tol (limit, 3644.7, 1e-9);
  ck_assert_double_eq_tol (member_number (root, "protocol_limit_read_mbps"), 3697.6, 1e-9);

  /* The config's benchmark.modes is all three, so all three results are present. Only signs are checked: the
   * figures themselves are test-calibration's business, against the published measurements. */
  JsonObject *results = member_object (root, "results");
  ck_assert_double_gt (member_number (member_object (results, "read"), "mbps"), 0);
  ck_assert_double_gt (member_number (member_object (results, "write"), "mbps"), 0);
  JsonObject *sim = member_object (results, "simultaneous");
  ck_assert_double_gt (member_number (sim, "read_mbps"), 0);
  ck_assert_double_gt (member_number (sim, "write_mbps"), 0);

  assert_usage (member_object (root, "link_usage"));
  /* Present because this config carries a published: block (Table 8); design.md: absent when it has none. */
  ck_assert (json_object_has_member (member_object (root, "published"), "dma_read_mbps"));

  JsonObject *stats = member_object (root, "stats");
  ck_assert_double_gt (member_number (stats, "events"), 0);
  ck_assert_double_gt (member_number (stats, "sim_time_ns"), 0);
  /* Host time, machine dependent: only its presence and sign can be checked. */
  ck_assert_double_ge (member_number (stats, "wall_s"), 0);
}
END_TEST

START_TEST (test_json_one_mode)
{
  /* design.md: a mode that was not run is absent from results. Absent, not null or 0: a script that averages
   * every entry of results would otherwise average in a figure that was never measured. */
  g_autoptr (JsonParser) p = run_json ("write");
  JsonObject *results = member_object (json_node_get_object (json_parser_get_root (p)), "results");
  ck_assert (json_object_has_member (results, "write"));
  ck_assert (!json_object_has_member (results, "read"));
  ck_assert (!json_object_has_member (results, "simultaneous"));
}
END_TEST

/* The JSON report of a run, parsed; the run must succeed. */
static JsonParser *
parse_run (const TestRun *r)
{
  ck_assert_msg (r->status == 0, "status %d: %s", r->status, r->err);
  JsonParser *p = json_parser_new ();
  g_autoptr (GError) e = NULL;
  ck_assert_msg (json_parser_load_from_data (p, r->out, -1, &e), "not JSON: %s\n%s", e ? e->message : "", r->out);
  return p;
}

/* Issue #12 item 3: Table 8's Gen2 x8 measurements beside a Gen2 x4 run used to be compared and flagged "above
 * the protocol limit" (of the x4 link). A --set of link.lanes changes what was measured: nothing is compared or
 * flagged, and every format says why. A --set of name (an output key) leaves the comparison as it is. */
START_TEST (test_set_not_comparable)
{
  g_auto (TestRun) r;
  PCIESIM (&r, CONFIG, "--format", "json", "--set", "link.lanes=4");
  g_autoptr (JsonParser) p = parse_run (&r);
  JsonObject *root = json_node_get_object (json_parser_get_root (p));
  JsonObject *pub = member_object (root, "published");
  ck_assert (!json_object_get_boolean_member (pub, "comparable"));
  ck_assert_str_eq (json_object_get_string_member (pub, "not_comparable"), "config changed by --set link.lanes");
  ck_assert_uint_eq (json_array_get_length (json_object_get_array_member (root, "comparison")), 0);

  g_auto (TestRun) t;
  PCIESIM (&t, CONFIG, "--set", "link.lanes=4");
  ck_assert_int_eq (t.status, 0);
  ck_assert_msg (!strstr (t.out, "flagged") && !strstr (t.out, "3326.0"), "%s", t.out);
  ck_assert_msg (strstr (t.out, "published figures (AN-456 Table 8) not comparable: config changed by --set "
                                "link.lanes\n"), "%s", t.out);

  g_auto (TestRun) n;
  PCIESIM (&n, CONFIG, "--format", "json", "--set", "name=renamed");
  g_autoptr (JsonParser) pn = parse_run (&n);
  JsonObject *rn = json_node_get_object (json_parser_get_root (pn));
  ck_assert (json_object_get_boolean_member (member_object (rn, "published"), "comparable"));
  ck_assert_uint_eq (json_array_get_length (json_object_get_array_member (rn, "comparison")), 4);
}
END_TEST

/* Issue #12 item 11: the JSON says what was run. Every key of the table is there, with its value and origin;
 * the places are read off the files: configs/svgx_g2_x8.yaml line 6 is "  gen: 2" (value at column 8), and
 * link.max_payload comes from configs/benchmarks/an456.yaml, which it includes. */
START_TEST (test_provenance)
{
  g_auto (TestRun) r;
  PCIESIM (&r, CONFIG, "--format", "json", "--mode", "read", "--seed", "5", "--set", "link.lanes=4");
  g_autoptr (JsonParser) p = parse_run (&r);
  JsonObject *root = json_node_get_object (json_parser_get_root (p));
  ck_assert_int_eq (json_object_get_int_member (root, "seed"), 5);
  JsonObject *keys = member_object (root, "resolved_config");
  guint n = 0;
  /* A fabric's keys, and those of a mechanism that is off, are left out of a one-link config's report while at
   * their defaults (config.h). */
  for (const char *const *k = ps_config_keys (); *k; k++) {
    gboolean out = ps_config_key_fabric_only (*k) || ps_config_key_off_by_default (*k);
    n += !out;
    ck_assert_msg (json_object_has_member (keys, *k) != out, "resolved_config %s %s", out ? "has the unused" : "lacks",
                   *k);
  }
  ck_assert_uint_eq (json_object_get_size (keys), n);
  JsonObject *lanes = member_object (keys, "link.lanes");
  ck_assert_int_eq (json_object_get_int_member (lanes, "value"), 4);
  ck_assert_str_eq (json_object_get_string_member (lanes, "from"), "set");
  ck_assert_str_eq (json_object_get_string_member (lanes, "at"), "--set link.lanes=4");
  JsonObject *gen = member_object (keys, "link.gen");
  ck_assert_str_eq (json_object_get_string_member (gen, "from"), "file");
  ck_assert_str_eq (json_object_get_string_member (gen, "at"), "configs/svgx_g2_x8.yaml:6:8");
  JsonObject *mps = member_object (keys, "link.max_payload");
  ck_assert_str_eq (json_object_get_string_member (mps, "from"), "include");
  ck_assert (g_str_has_prefix (json_object_get_string_member (mps, "at"), "configs/benchmarks/an456.yaml:"));
  JsonObject *flight = member_object (keys, "link.flight_ns");
  ck_assert_str_eq (json_object_get_string_member (flight, "from"), "default");
  ck_assert (!json_object_has_member (flight, "at"));
  JsonArray *modes = json_object_get_array_member (member_object (keys, "benchmark.modes"), "value");
  ck_assert_uint_eq (json_array_get_length (modes), 3);

  /* CSV carries the same as comment lines ahead of its table. */
  g_auto (TestRun) c;
  PCIESIM (&c, CONFIG, "--format", "csv", "--mode", "read", "--set", "link.lanes=4");
  ck_assert_msg (strstr (c.out, "\n# link.lanes = 4 (--set link.lanes=4)\n") &&
                   strstr (c.out, "\n# link.gen = 2 (file configs/svgx_g2_x8.yaml:6:8)\n") &&
                   strstr (c.out, "\n# link.flight_ns = 1 (default)\n"),
                 "%s", c.out);
}
END_TEST

/* Issue #12 item 7: a config of only link: {gen: 4, lanes: 16} ran its datapath at the key table's 64 bits and
 * 125 MHz: 884.5 MB/s DMA write, 3% of theoretical. Not given, the datapath is the hard IP's for the link: 512
 * bits at 500 MHz (pcie-protocol.md §7). By hand, that datapath carries a 128-byte MWr (the default MPS) and its
 * 12-byte header in ceil(140 / 64) = 3 beats of 2 ns: 128 B / 6 ns = 21333 MB/s, below the link's protocol limit,
 * so the write is bound by it. With configs/hosts/ideal.yaml nothing on the host side waits, and reads (128-byte
 * completions, 12-byte headers, the same 3 beats on the receive side) come as close. */
static double
gen4_x16_figure (const char *dir, const char *yaml, const char *mode, char **table)
{
  g_autofree char *path = g_build_filename (dir, "g4.yaml", NULL);
  ck_assert (g_file_set_contents (path, yaml, -1, NULL));
  g_auto (TestRun) r;
  PCIESIM (&r, path, "--mode", mode, "--format", "csv");
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  g_auto (GStrv) lines = g_strsplit (csv_table (r.out), "\n", 3);
  g_auto (GStrv) f = g_strsplit (lines[1], ",", -1);
  ck_assert_uint_ge (g_strv_length (f), 3);
  g_auto (TestRun) t;
  PCIESIM (&t, path, "--mode", mode);
  *table = g_steal_pointer (&t.out);
  return g_ascii_strtod (f[2], NULL);
}

START_TEST (test_datapath_follows_link)
{
  g_autofree char *dir = case_dir ("gen4x16");
  const double bound = 128.0 / 6e-9 / 1e6;
  g_autofree char *table = NULL;
  double write = gen4_x16_figure (dir, "link: {gen: 4, lanes: 16}\n", "write", &table);
  ck_assert_msg (write > 0.8 * bound && write <= bound, "Gen4 x16 write %.1f MB/s, want 80-100%% of %.1f", write,
                 bound);
  /* The table says which of its values nobody gave, and what the datapath follows. */
  ck_assert_msg (strstr (table, "defaults (not given): link.max_payload 128, link.max_read_request 512, "
                                "endpoint.tags 32, benchmark.transfer_bytes 102400, benchmark.iterations 20; "
                                "endpoint.datapath_bits 512, endpoint.clock_mhz 500 (hard IP for Gen4 x16, by "
                                "pcie-protocol.md §7's rule (narrowest covering the link)); every host.* key"), "%s", table);
  g_autofree char *ideal = g_strdup_printf ("include: [%s/configs/hosts/ideal.yaml]\nlink: {gen: 4, lanes: 16}\n",
                                            source_root ());
  g_autofree char *t_write = NULL, *t_read = NULL;
  double ideal_write = gen4_x16_figure (dir, ideal, "write", &t_write);
  double ideal_read = gen4_x16_figure (dir, ideal, "read", &t_read);
  ck_assert_msg (ideal_write >= write && ideal_write > 0.95 * bound && ideal_write <= bound, "ideal write %.1f",
                 ideal_write);
  ck_assert_msg (ideal_read > 0.95 * bound && ideal_read <= bound, "ideal read %.1f", ideal_read);
  ck_assert_msg (!strstr (t_write, "host.*"), "%s", t_write);
}
END_TEST

/* results.MODE.errors (issue #16): with link.ber > 0 both workloads report every count of both directions, and
 * the counts move with the rate; without errors the object is absent. A read on the chaining DMA sends its
 * completions downstream: at BER 1e-5 on this Gen2 link (8b/10b: 10 line bits a byte, pcie-protocol.md §10) a
 * 276-byte completion fails with 1 - (1 - 1e-5)^2760 = 2.72% per transmission, so 20 × 100 KB of them (8000 TLPs)
 * and the replayed ones give that share of errors within 4.5 standard deviations, and the MRds upstream (20 bytes)
 * about 10 times fewer. */
static JsonObject *
errors_of_run (JsonParser *p, const char *mode)
{
  JsonObject *res = member_object (json_node_get_object (json_parser_get_root (p)), "results");
  return member_object (member_object (res, mode), "errors");
}

START_TEST (test_json_errors)
{
  static const char *const counts[] = { "tlp_errors", "dllp_errors", "naks", "replays", "replay_timeouts",
                                        "retrains", "replayed_tlps", "replayed_bytes", "flit_errors",
                                        "framing_errors" };
  g_auto (TestRun) r;
  PCIESIM (&r, CONFIG, "--format", "json", "--mode", "read", "--set", "link.ber=1e-5");
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *e = errors_of_run (p, "read");
  for (int d = 0; d < 2; d++) {
    JsonObject *dir = member_object (e, d ? "downstream" : "upstream");
    for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
      ck_assert_msg (member_number (dir, counts[i]) >= 0, "%s", counts[i]);
  }
  double down = member_number (member_object (e, "downstream"), "tlp_errors");
  double up = member_number (member_object (e, "upstream"), "tlp_errors");
  double sent = 8000 + member_number (member_object (e, "downstream"), "replayed_tlps");
  double pb = 1 - pow (1 - 1e-5, 2760), mean = sent * pb, sd = sqrt (sent * pb * (1 - pb));
  ck_assert_msg (fabs (down - mean) <= 4.5 * sd && up < down / 3, "%.0f errors downstream in %.0f TLPs (want %.1f ± "
                 "%.1f), %.0f upstream", down, sent, mean, sd, up);
  ck_assert (member_number (member_object (e, "downstream"), "replays") > 0);
  /* Error-free: no errors object. */
  g_autoptr (JsonParser) clean = run_json ("read");
  JsonObject *res = member_object (json_node_get_object (json_parser_get_root (clean)), "results");
  ck_assert (!json_object_has_member (member_object (res, "read"), "errors"));
}
END_TEST

/* --- keys ---------------------------------------------------------------------------------------------- */

START_TEST (test_keys)
{
  g_auto (TestRun) r;
  PCIESIM (&r, "keys");
  ck_assert_int_eq (r.status, 0);
  /* The trailing space makes it the whole key at the start of a line, not a prefix of a longer key name. */
  ck_assert_msg (g_str_has_prefix (r.out, "link.gen ") || strstr (r.out, "\nlink.gen "), "no link.gen:\n%s", r.out);
  ck_assert_msg (strstr (r.out, "\nbenchmark.transfer_bytes "), "no benchmark.transfer_bytes:\n%s", r.out);

  /* The Markdown form is what docs/configs.md's key table is generated from. */
  g_auto (TestRun) md;
  PCIESIM (&md, "keys", "--format", "markdown");
  ck_assert_int_eq (md.status, 0);
  ck_assert_msg (strstr (md.out, "\n| `link.gen` |"), "no link.gen row:\n%s", md.out);
  /* A fabric's fields too (issue #26): the node keys bars, weights and ports, a link's, a flow's. */
  const char *const fields[] = { "topology.nodes.NAME.bars", "topology.nodes.NAME.weights", "topology.nodes.NAME.ports",
                                 "topology.links[].a_rx_credits", "flows[].rate_mbps", NULL };
  for (const char *const *f = fields; *f; f++) {
    g_autofree char *row = g_strdup_printf ("\n| `%s` |", *f);
    ck_assert_msg (strstr (md.out, row) != NULL, "no %s row", *f);
  }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cli");
  TCase *tc = tcase_create ("cli");
  /* Each test spawns full simulations; sanitizer builds are many times slower than the 4 s default allows. */
  tcase_set_timeout (tc, 120);
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_test (tc, test_help);
  tcase_add_test (tc, test_version);
  tcase_add_test (tc, test_rdwr_limit_per_direction);
  tcase_add_loop_test (tc, test_usage_errors, 0, G_N_ELEMENTS (usage_cases));
  tcase_add_test (tc, test_trace_window_past_end);
  tcase_add_test (tc, test_fabric_report_parts);
  tcase_add_test (tc, test_missing_config);
  tcase_add_test (tc, test_bad_data);
  tcase_add_test (tc, test_bad_set);
  tcase_add_test (tc, test_output_success);
  tcase_add_test (tc, test_output_failure);
  tcase_add_test (tc, test_name_cells);
  tcase_add_test (tc, test_ecrc_key);
  tcase_add_test (tc, test_json_schema);
  tcase_add_test (tc, test_json_one_mode);
  tcase_add_test (tc, test_json_errors);
  tcase_add_test (tc, test_keys);
  tcase_add_test (tc, test_set_not_comparable);
  tcase_add_test (tc, test_help_command);
  tcase_add_test (tc, test_mode_list);
  tcase_add_test (tc, test_wrong_kind_of_file);
  tcase_add_test (tc, test_provenance);
  tcase_add_test (tc, test_datapath_follows_link);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
