/* main.c — the pciesim command line: dispatch on the first word, one GOptionContext per subcommand.
 * Every failure funnels through finish(): one line on stderr, exit status = the PsErrorCode (sysexits). */
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/run/builder.h"
#include "pciesim-describe.h"
#include "pciesim-version.h"
#include "app/cli/cli.h"
#include "app/config/config.h"
#include "app/base/error.h"
#include "app/study/fit.h"
#include "app/import/lspci.h"
#include "app/import/machine.h"
#include "app/import/pciebench.h"
#include "app/report/report.h"
#include "app/study/sweep.h"
#include "app/config/topology.h"
#include "app/study/validate.h"

/* Shown by `pciesim --help`, which reaches the default command's context since "--help" is no subcommand word.
 * The statuses are error.h's PsErrorCode values; 1 (figures beyond tolerance) is validate's alone, in its --help. */
static const char *summary_text =
    "Simulates a PCI Express link and a chaining-DMA engine and prints the DMA\n"
    "throughput it predicts beside the published figures in the config.\n"
    "\n"
    "Commands:\n"
    "  pciesim CONFIG [OPTION…]      run a config (the default command)\n"
    "  pciesim validate [CONFIG…]    run every config with published figures and compare\n"
    "  pciesim keys [--format F]     list every config key with its unit and source\n"
    "  pciesim sweep SCENARIO        run a what-if scenario's points (--set, --jobs, --shard I/N, --resume)\n"
    "  pciesim merge FILE… -o OUT    join sweep shards into the file one unsharded run writes\n"
    "  pciesim import lspci DUMP     a config from `lspci -vvv` (--device, --tree, --host, -o)\n"
    "  pciesim import pciebench DIR  pcie-bench's results as measurements for fit (--device, --host, -o)\n"
    "  pciesim machine DUMP          every device of `lspci -vvv`: links, settings, ceilings (--tree)\n"
    "  pciesim fit FILE -o OUT       fit a config's assumptions to measurements, write the fitted config\n"
    "  pciesim help [COMMAND]        a command's options (the same as COMMAND --help)\n"
    "\n"
    "Exit status: 0 success, 64 usage error, 65 bad config data, 66 missing file,\n"
    "70 internal error (an invariant broke), 73 cannot write the output.";

/* The single exit path: whatever failed, the user sees one line and the PsErrorCode becomes the status. A GError
 * from outside our domain (GOption's) can only come from the command line, hence usage. */
static int
finish (GError *error)
{
  if (!error)
    return 0;
  /* Our messages are complete lines already (error.h): printed as they are, with no prefix added here. */
  fprintf (stderr, "%s\n", error->message);
  int code = error->domain == PS_ERROR ? error->code : PS_ERROR_USAGE;
  g_error_free (error);
  return code;
}

/* GOption reports its own errors without our prefix; wrap them as usage errors, with a pointer to the --help of
 * the command at fault ("pciesim validate --help"; NULL for the default command), since its messages name only the
 * option. */
static GError *
usage_error (GError *e, const char *command)
{
  GError *u = NULL;
  ps_error_plain (&u, PS_ERROR_USAGE, "%s (see pciesim %s%s--help)", e->message, command ? command : "",
                  command ? " " : "");
  g_error_free (e);
  return u;
}

/* A usage error of our own, with the same pointer to the command's --help. */
static int
usage (const char *command, const char *message)
{
  GError *e = NULL;
  ps_error_plain (&e, PS_ERROR_USAGE, "%s (see pciesim %s%s--help)", message, command ? command : "",
                  command ? " " : "");
  return finish (e);
}

/* --mode, given once or more, each a word or a comma-separated list ("-m read,write", "-m read -m write"): the
 * modes form a set, as benchmark.modes does. 0 when none was given. */
static gboolean
parse_modes (char **given, unsigned *out, GError **error)
{
  *out = 0;
  for (char **g = given; g && *g; g++) {
    g_auto (GStrv) words = g_strsplit (*g, ",", -1);
    for (char **w = words; *w; w++) {
      unsigned m = ps_mode_parse (g_strstrip (*w));
      /* An unknown word would read as 0, which means "not given": it must be refused here. */
      if (!m) {
        ps_error_plain (error, PS_ERROR_USAGE, "unknown --mode '%s' (read, write, simultaneous, all, pio_read or "
                                               "pio_write; a list "
                                               "as read,write or --mode repeated)", *w);
        return FALSE;
      }
      *out |= m;
    }
  }
  return TRUE;
}

/* `pciesim keys`: the key table is the documentation of record; docs/configs.md's key list is generated from it.
 * Its two formats are its own (the table or docs/configs.md's Markdown), not a report's, so parse_format() does not
 * apply: csv or json are refused here. No positional argument either: the key list is the same for every config. */
static int
cmd_keys (int argc, char **argv)
{
  g_autofree char *format = NULL;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "table or markdown", "F" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- list every config key");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, "keys"));
  if (argc > 1 || (format && strcmp (format, "table") != 0 && strcmp (format, "markdown") != 0))
    return usage ("keys", "usage: pciesim keys [--format table|markdown]");
  g_autoptr (GString) out = g_string_new (NULL);
  /* Which shipped files give a key a range: the configs validate would run, found the same way. */
  g_autofree char *dir = ps_default_configs_dir ();
  g_autoptr (GHashTable) ranges = ps_config_shipped_ranges (dir);
  ps_config_print_keys (out, format && strcmp (format, "markdown") == 0, ranges);
  ps_topology_print_fields (out, format && strcmp (format, "markdown") == 0);
  fputs (out->str, stdout);
  return 0;
}

/* Shared by every subcommand so the list of formats and its error message exist once. A NULL word means the
 * option was not given: *out keeps the caller's default (table for a run, csv for a sweep). */
static gboolean
parse_format (const char *word, PsFormat *out, GError **error)
{
  gboolean ok = TRUE;
  if (word)
    *out = ps_format_parse (word, &ok);
  if (!ok)
    ps_error_plain (error, PS_ERROR_USAGE, "unknown --format '%s' (table, csv, json or markdown)", word);
  return ok;
}

/* `pciesim validate`: comparison of every published figure, for CI and for the docs/validation.md tables. */
static int
cmd_validate (int argc, char **argv)
{
  g_autofree char *format = NULL, *output = NULL;
  g_auto (GStrv) sets = NULL;
  double tolerance = 5.0;
  gboolean strict = FALSE;
  gint jobs = 0;
  /* Seed 1, not the time, in every command: the same command line gives the same figures. GOption has no
   * unsigned 64-bit type; a negative --seed is refused (issue #26: it would be taken as its two's-complement
   * bits, a seed nobody meant). */
  gint64 seed = 1;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "table (default), csv, json or markdown", "FORMAT" },
    { "tolerance", 't', 0, G_OPTION_ARG_DOUBLE, &tolerance, "largest acceptable |error| in percent (default 5)",
      "PCT" },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &strict, "count figures the configs mark as suspect in the statistics and "
      "the tolerance", NULL },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "worker threads (default: number of cores)", "N" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a key in every config (repeatable)", "KEY=VALUE" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of every random stream (default 1)", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write the report to FILE atomically", "FILE" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("[CONFIG…] - compare simulated and published figures");
  g_option_context_set_description (ctx, "Without CONFIG, every configs/*.yaml with a published: block is run, from\n"
                                         "./configs if there is one, else the configs installed with this binary\n"
                                         "(../share/pciesim beside it, or " PCIESIM_DATADIR "),\n"
                                         "else those of the source tree it was built from.\n"
                                         "Figures a config marks as suspect (published.suspect) are shown\n"
                                         "with the reason and left out of the statistics, unless --strict.\n"
                                         "Exit status 1 when any counted figure is beyond the tolerance.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, "validate"));
  if (seed < 0)
    return usage ("validate", "--seed must not be negative");
  /* Remaining arguments are config paths: GOption leaves them in argv after parsing. */
  PsValidate v = { .configs = (const char *const *) argv + 1, .sets = (const char *const *) sets,
                   .tolerance_pct = tolerance, .strict = strict, .jobs = jobs, .seed = (uint64_t) seed,
                   .output = output };
  if (!parse_format (format, &v.format, &e))
    return finish (e);
  /* Written !(x >= 0), not x < 0, so that --tolerance nan (which GOption's g_strtod accepts) is refused too: a
   * figure is beyond tolerance only if its error compares greater, and nothing compares greater than NaN. */
  if (!(tolerance >= 0) || jobs < 0)
    return usage ("validate", "--tolerance and --jobs must not be negative");
  /* 1 (PS_ERROR_FAILED) is a result, not an error: the report says which figures missed, stderr stays empty. */
  int rc = ps_validate (&v, &e);
  return rc < 0 ? finish (e) : rc;
}

/* The default command: run one config. Options mirror fio's (--format, --output) because users know them. */
static int
cmd_run (int argc, char **argv)
{
  g_autofree char *format = NULL, *output = NULL, *trace = NULL, *trace_window = NULL;
  g_auto (GStrv) sets = NULL, mode = NULL;
  gint64 seed = 1, trace_max = 0;
  gboolean version = FALSE, ranges = FALSE;
  gint jobs = 0, samples = 0;
  GOptionEntry entries[] = {
    { "mode", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &mode,
      "read, write, simultaneous, all (the three), pio_read or pio_write (a list: read,write; repeatable; default: "
      "benchmark.modes)", "MODE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "table (default), csv, json or markdown", "FORMAT" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a config key, e.g. --set link.lanes=4 (repeatable)",
      "KEY=VALUE" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of every random stream (default 1)", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write the report to FILE atomically (default stdout)",
      "FILE" },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &trace,
      "write the run's TLPs, credits, tags, DMA and CPU phases (the first mode's; any workload) to FILE.vcd "
      "(GTKWave) or FILE.json (Perfetto)",
      "FILE" },
    { "trace-window", 0, 0, G_OPTION_ARG_STRING, &trace_window,
      "trace only simulated time [START, END) in ns; either side may be empty", "START_NS:END_NS" },
    { "trace-max-bytes", 0, 0, G_OPTION_ARG_INT64, &trace_max,
      "size cap of the trace file (default 512 MiB); the trace stops there, valid, with a marker", "N" },
    { "ranges", 0, 0, G_OPTION_ARG_NONE, &ranges,
      "run over the config's assumption ranges: each figure's worst case over them (a search) and the assumptions that move it most", NULL },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples,
      "--ranges: also N Latin-hypercube points drawn from --seed, their spread shown beside the bound (default none)",
      "N" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "--ranges: worker threads (default: number of cores)", "N" },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "print the version and exit", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("CONFIG - simulate a PCIe DMA benchmark");
  g_option_context_set_summary (ctx, summary_text);
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, NULL));
  if (seed < 0)
    return usage (NULL, "--seed must not be negative");
  /* Before the argument count, so `pciesim --version` needs no CONFIG. The git describe names the exact commit;
   * built outside git there is only the project version. */
  if (version) {
    if (strcmp (PCIESIM_DESCRIBE, PCIESIM_VERSION) == 0)
      printf ("pciesim %s\n", PCIESIM_VERSION);
    else
      printf ("pciesim %s (%s)\n", PCIESIM_VERSION, PCIESIM_DESCRIBE);
    return 0;
  }
  /* Exactly one config: a second positional argument is more likely a typo than a wish to run two. */
  if (argc != 2)
    return usage (NULL, argc < 2 ? "no config file given" : "more than one config file given");
  /* --set values are applied in the order given, so a later one wins over an earlier one for the same key. */
  if (trace_max < 0 || ((trace_window || trace_max) && !trace))
    return usage (NULL, trace_max < 0 ? "--trace-max-bytes must not be negative"
                                      : "--trace-window and --trace-max-bytes need --trace FILE");
  if (jobs < 0 || samples < 0 || ((jobs || samples) && !ranges) || (ranges && trace))
    return usage (NULL, jobs < 0 || samples < 0 ? "--jobs and --samples must not be negative"
                        : trace ? "--ranges runs many times: it cannot be traced" : "--jobs and --samples need --ranges");
  PsCliRun run = { .config_path = argv[1], .sets = (const char *const *) sets, .seed = (uint64_t) seed,
                   .format = PS_FORMAT_TABLE, .output = output, .trace_path = trace, .trace_window = trace_window,
                   .trace_max_bytes = (uint64_t) trace_max, .ranges = ranges, .jobs = jobs,
                   .samples = (guint) samples };
  if (!parse_format (format, &run.format, &e))
    return finish (e);
  if (!parse_modes (mode, &run.modes, &e))
    return finish (e);
  /* Its result adds nothing: `e` is set exactly when it fails, and finish (NULL) is 0. */
  ps_cli_run (&run, &e);
  return finish (e);
}

/* The signal that stopped a sweep; the sweep polls it, saves its finished points, then we die of it.
 * volatile sig_atomic_t is the only kind of static object a handler may write (C11 §7.14.1.1). */
static volatile sig_atomic_t sweep_signal;

/* Only records the signal, the one thing a handler can do safely: the saving is done by the sweep's own loop. */
static void
on_sweep_signal (int sig)
{
  sweep_signal = sig;
}

/* `pciesim sweep`: the options map one to one onto PsSweep. The checks below need only the command line, so a bad
 * invocation fails before the scenario is read. */
static int
cmd_sweep (int argc, char **argv)
{
  g_autofree char *format = NULL, *output = NULL, *shard = NULL;
  g_auto (GStrv) sets = NULL, mode = NULL;
  gint jobs = 0;
  gint64 seed = 1;
  gboolean resume = FALSE, list = FALSE;
  GOptionEntry entries[] = {
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "worker threads (default: number of cores)", "N" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "override a config key at every point, after the scenario's overrides (repeatable; not an axis)", "KEY=VALUE" },
    { "mode", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &mode,
      "read, write, simultaneous, all (the three), pio_read or pio_write (a list: read,write; repeatable; "
      "default: the scenario's modes)", "MODE" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard, "run only share I of N (points whose index % N = I-1)", "I/N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "csv (default) or json", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write to FILE atomically (default stdout)", "FILE" },
    { "resume", 'r', 0, G_OPTION_ARG_NONE, &resume, "keep the points already in --output FILE, run the rest", NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of every random stream (default 1)", "N" },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list, "check every point's config and list the points (CSV), run none",
      NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("SCENARIO - run every point of a what-if scenario");
  g_option_context_set_description (ctx, "One row per point, in a stable order, identical for any --jobs.\n"
                                         "Shards of one sweep (--shard 1/N … N/N) join with pciesim merge.\n"
                                         "A progress line goes to stderr when it is a terminal.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, "sweep"));
  if (seed < 0)
    return usage ("sweep", "--seed must not be negative");
  if (argc != 2)
    return usage ("sweep", argc < 2 ? "no scenario file given" : "more than one scenario file given");
  /* Progress only on a terminal: the line redraws itself with \r and an erase code, which would litter a log. */
  PsSweep s = { .scenario = argv[1], .jobs = jobs, .format = PS_FORMAT_CSV, .output = output, .resume = resume,
                .progress = isatty (STDERR_FILENO), .seed = (uint64_t) seed, .list = list,
                .sets = (const char *const *) sets };
  if (!parse_modes (mode, &s.modes, &e))
    return finish (e);
  if (!parse_format (format, &s.format, &e))
    return finish (e);
  /* A sweep's output is read back by --resume and merge, which know only CSV and JSON (sweep.h). */
  if (s.format != PS_FORMAT_CSV && s.format != PS_FORMAT_JSON) {
    g_autofree char *m = g_strdup_printf ("sweep writes csv or json, not '%s'", format);
    return usage ("sweep", m);
  }
  if (jobs < 0 || (list && resume))
    return usage ("sweep", jobs < 0 ? "--jobs must not be negative" : "--list runs nothing to resume");
  if (shard && !ps_sweep_parse_shard (shard, &s.shard_index, &s.shard_count, &e))
    return finish (e);
  /* Only a sweep that writes a file has anything to save; otherwise the default (die at once) is right.
   * SIGINT is Ctrl-C; SIGTERM is what batch systems send before they kill or pre-empt a job. SIGKILL cannot be
   * caught: what survives it is the sweep's periodic rewrite of its file. */
  if (output && strcmp (output, "-") != 0 && !list) {
    /* No SA_RESTART: a system call the signal interrupts fails with EINTR (ytree_load_file retries its reads). */
    struct sigaction sa = { .sa_handler = on_sweep_signal };
    sigemptyset (&sa.sa_mask);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    s.interrupted = &sweep_signal;
  }
  ps_sweep_run (&s, &e);
  if (sweep_signal) {
    /* Dying of the signal tells the parent (a shell, Slurm, parallel) what happened, as exit statuses cannot.
     * finish() first prints the sweep's error, if any ("interrupted: N of M points saved …"). raise() does not
     * return (the default action of both signals ends the process); stealing `e` keeps the line below safe even
     * if it did. */
    finish (g_steal_pointer (&e));
    signal (sweep_signal, SIG_DFL);
    raise (sweep_signal);
  }
  return finish (e);
}

/* `pciesim merge`: no --format, since the inputs' own format (CSV or JSON, all alike) is kept. */
static int
cmd_merge (int argc, char **argv)
{
  g_autofree char *output = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write to FILE atomically (default stdout)", "FILE" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE… - join the shards of one sweep");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, "merge"));
  if (argc < 2)
    return usage ("merge", "usage: pciesim merge FILE… [--output FILE]");
  ps_sweep_merge ((const char *const *) argv + 1, output, &e);
  return finish (e);
}

/* `pciesim import lspci`: the one import there is; the word names the format, so others can follow. */
static int
cmd_import (int argc, char **argv)
{
  g_autofree char *device = NULL, *tree = NULL, *host = NULL, *output = NULL;
  GOptionEntry entries[] = {
    { "device", 'd', 0, G_OPTION_ARG_STRING, &device, "the device to import, as lspci names it (needed when the "
      "dump holds several)", "BDF" },
    { "tree", 't', 0, G_OPTION_ARG_FILENAME, &tree, "the output of `lspci -tv` of the same machine: the switches "
      "above the device become a topology", "TREEFILE" },
    { "host", 0, 0, G_OPTION_ARG_FILENAME, &host, "the host file to include (default hosts/ideal.yaml, a host that "
      "never limits)", "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write the config to FILE atomically (default stdout)",
      "FILE" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("lspci DUMP | pciebench DIR - a config from the text of "
                                                         "`lspci -vvv`, or measurements from pcie-bench's results");
  g_option_context_set_description (ctx, "DUMP is what `sudo lspci -vvv` prints (without root the capabilities\n"
                                         "are hidden); `lspci -vvv -s BDF` gives one device. The config takes the\n"
                                         "trained link (LnkSta), MaxPayload and MaxReadReq (DevCtl), the RCB\n"
                                         "(LnkCtl) and the tags (ExtTag, 10BitTagReq), each with a comment naming\n"
                                         "its line, and is checked before it is written. A note on stderr flags\n"
                                         "a link trained below its capability (LnkCap).\n"
                                         "`import pciebench DIR -o m.yaml`: every row of pcie-bench's CSV tables\n"
                                         "a measurement for `pciesim fit`, on a base imported from DIR's own\n"
                                         "sys-lspci.txt (written as m.base.yaml); rows this pciesim cannot run\n"
                                         "yet stay comments with the reason.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, "import"));
  gboolean pb = argc >= 2 && strcmp (argv[1], "pciebench") == 0;
  if (argc < 2 || (strcmp (argv[1], "lspci") != 0 && !pb))
    return usage ("import", "usage: pciesim import lspci DUMP [--device BDF] [--tree TREEFILE] [--host FILE] "
                  "[-o FILE], or pciesim import pciebench DIR [--device BDF] [--host FILE] -o FILE");
  if (argc != 3)
    return usage ("import", argc < 3 ? (pb ? "no pcie-bench directory given" : "no lspci dump given")
                                     : (pb ? "more than one directory given" : "more than one lspci dump given"));
  if (pb) {
    if (tree)
      return usage ("import", "--tree is lspci's: pcie-bench's directory holds no `lspci -tv`");
    PsPciebenchImport pi = { .dir = argv[2], .device = device, .host = host, .output = output };
    ps_pciebench_import (&pi, &e);
    return finish (e);
  }
  PsLspciImport imp = { .dump_path = argv[2], .tree_path = tree, .device = device, .host = host, .output = output };
  ps_lspci_import (&imp, &e);
  return finish (e);
}

/* `pciesim machine`: the whole machine's report; the formats are a report's four. */
static int
cmd_machine (int argc, char **argv)
{
  g_autofree char *tree = NULL, *format = NULL, *output = NULL;
  GOptionEntry entries[] = {
    { "tree", 't', 0, G_OPTION_ARG_FILENAME, &tree, "the output of `lspci -tv` of the same machine (the ports above "
      "each device, where the dump's Bus: lines do not say)", "TREEFILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "table (default), json, csv or markdown", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write to FILE atomically (default stdout)", "FILE" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DUMP - every PCIe function of `lspci -vvv`: its link, "
                                                         "settings and ceilings");
  g_option_context_set_description (ctx, "DUMP is what `sudo lspci -vvv` prints for the whole machine. One row per\n"
                                         "function: the link as trained (LnkSta) against what both ends can run\n"
                                         "(LnkCap), downgraded links with their likely cause, MaxPayload,\n"
                                         "MaxReadReq, relaxed ordering and tags against what the device supports,\n"
                                         "and the protocol's ceiling for DMA reads and writes (MB/s) at the trained\n"
                                         "link and settings beside the ceiling at the capable ones. Then the devices\n"
                                         "that lose most, with the change that recovers it.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, "machine"));
  if (argc != 2)
    return usage ("machine", argc < 2 ? "no lspci dump given" : "more than one lspci dump given");
  PsMachine m = { .dump_path = argv[1], .tree_path = tree, .format = PS_FORMAT_TABLE, .output = output };
  if (!parse_format (format, &m.format, &e))
    return finish (e);
  ps_machine_run (&m, &e);
  return finish (e);
}

/* `pciesim fit`: the report to stdout, the fitted config to --output. */
static int
cmd_fit (int argc, char **argv)
{
  g_autofree char *output = NULL, *format = NULL;
  gint jobs = 0;
  gint64 seed = 1;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write the fitted config to FILE atomically", "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "the report: table (default) or json", "FORMAT" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress line on stderr (written only to a terminal)", NULL },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "worker threads (default: number of cores)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of every random stream (default 1)", "N" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - fit a config's assumptions to measurements");
  g_option_context_set_description (ctx, "FILE gives base: (a config), measurements: (each a set: of config keys and\n"
                                         "one sweep metric with its measured value) and optionally parameters: (keys\n"
                                         "with a range; default every one). Prints each measurement's residual and\n"
                                         "each parameter's fitted value and whether the data constrain it.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *e = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &e))
    return finish (usage_error (e, "fit"));
  if (argc != 2 || jobs < 0)
    return usage ("fit", jobs < 0 ? "--jobs must not be negative" : "usage: pciesim fit FILE [--output FITTED.yaml]");
  if (format && strcmp (format, "table") != 0 && strcmp (format, "json") != 0)
    return usage ("fit", "--format must be table or json");
  PsFit fit = { .path = argv[1], .output = output, .seed = (uint64_t) seed, .jobs = jobs,
                .format = format && strcmp (format, "json") == 0 ? PS_FORMAT_JSON : PS_FORMAT_TABLE,
                .progress = !quiet && isatty (STDERR_FILENO) };
  g_autoptr (GString) report = g_string_new (NULL);
  gboolean disagree = FALSE;
  if (!ps_fit_run (&fit, report, &disagree, &e))
    return finish (e);
  fputs (report->str, stdout);
  /* As validate does for figures beyond tolerance: the report and the fitted file are written, and the status says
   * the data are not explained. */
  return disagree ? 1 : 0;
}

typedef int (*Command) (int argc, char **argv);

static const struct {
  const char *name;
  Command run;
} commands[] = {
  { "validate", cmd_validate },
  { "keys", cmd_keys },
  { "sweep", cmd_sweep },
  { "merge", cmd_merge },
  { "import", cmd_import },
  { "machine", cmd_machine },
  { "fit", cmd_fit },
};

static Command
find_command (const char *word)
{
  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (word, commands[i].name) == 0)
      return commands[i].run;
  return NULL;
}

/* `pciesim help [COMMAND]`: the command's --help, as a user who types the word git and gio take expects. GOption
 * prints it and exits 0 from inside the parse, so the command runs with argv "COMMAND --help". */
static int
cmd_help (int argc, char **argv)
{
  if (argc > 2)
    return usage ("help", "usage: pciesim help [COMMAND]");
  const char *word = argc == 2 ? argv[1] : NULL;
  /* `pciesim help --help` (what completion asks every command) gets the one line there is to say. */
  if (word && (strcmp (word, "--help") == 0 || strcmp (word, "-h") == 0)) {
    printf ("Usage:\n  pciesim help [COMMAND] - the options of COMMAND (validate, keys, sweep, merge, import, machine, fit), or "
            "of running "
            "a config\n");
    return 0;
  }
  Command c = word ? find_command (word) : cmd_run;
  if (!c) {
    g_autofree char *m = g_strdup_printf ("help: no command '%s' (validate, keys, sweep, merge, import, machine, fit; or "
                                          "none for "
                                          "running a config)", word);
    return usage (NULL, m);
  }
  char *help_argv[] = { word ? argv[1] : (char *) "pciesim", (char *) "--help", NULL };
  return c (2, help_argv);
}

/* Dispatch on the first word (like git or GLib's gio tool) so subcommands get their own options and --help.
 * A subcommand word is recognised only as argv[1] and always wins: a config file named "validate" must be given
 * as ./validate. Each cmd_* gets argv shifted by one, so GOption sees the subcommand as its program name. */
int
main (int argc, char **argv)
{
  /* The user's locale first, so GLib's own text (GOption's --help and messages) follows their language. */
  setlocale (LC_ALL, "");
  /* Numbers in reports must not depend on the user's locale (decimal commas would break CSV and JSON). */
  setlocale (LC_NUMERIC, "C");
  if (argc > 1 && strcmp (argv[1], "help") == 0)
    return cmd_help (argc - 1, argv + 1);
  Command c = argc > 1 ? find_command (argv[1]) : NULL;
  if (c)
    return c (argc - 1, argv + 1);
  return cmd_run (argc, argv);
}
