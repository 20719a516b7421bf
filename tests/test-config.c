/* test-config.c — the config loader: every rejection is located and coded, includes and --set override in the
 * documented order, and a minimal config gets the defaults the key table documents.
 *
 * Each expected LINE:COL below was worked out by reading the snippet (1-based; a tab or space is one column),
 * with the reasoning in the comment where it is not the first character of the named token. */
#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TMPDIR_TEMPLATE "pciesim-test-config-XXXXXX"
#include "tests/common.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/config/ytree.h"

/* Load text as a config file with the given --set list; the error (or NULL) is returned through err. */
static PsConfig *
load_text (const char *dir, const char *text, const char *const *sets, GError **err)
{
  g_autofree char *path = write_bytes (dir, "c.yaml", text, -1);
  return ps_config_load (path, sets, err);
}

/* The spec minimum itself is legal (§3.4.2): exactly one MPS TLP of posted data (256 / 16 = 16 credits) and one
 * completion of min(MPS, MRRS) = 256 bytes; and 0 stays infinite whatever the MPS. */
START_TEST (test_credit_minimum_accepted)
{
  g_autofree char *dir = case_dir ("credit-minimum");
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, "link:\n  gen: 2\n  lanes: 8\n  max_payload: 256\n"
                                        "host:\n  rx_credits: {ph: 1, pd: 16, nph: 1, npd: 1, cplh: 1, cpld: 16}\n"
                                        "endpoint:\n  rx_credits: {pd: 0, cpld: 0}\n", NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "?");
  ck_assert_int_eq (cfg->host.rx_credits.pd, 16);
  /* The unscaled limits themselves (127 headers, 2047 data credits, spec §2.6.1) pass at Gen2, 256 tags too; a
   * port supporting 16 GT/s may scale its credits beyond them and use 10-bit tags at any rate (issue #39). */
  g_autoptr (PsConfig) cap = load_text (dir, "link:\n  gen: 2\n  lanes: 8\nhost:\n  rx_credits: {ph: 127, pd: 2047}\n"
                                        "endpoint:\n  tags: 256\n", NULL, &e);
  ck_assert_msg (cap != NULL, "%s", e ? e->message : "?");
  g_autoptr (PsConfig) scaled = load_text (dir, "link:\n  gen: 2\n  lanes: 8\n  supported_gen: 4\nhost:\n  rx_credits: "
                                           "{ph: 500, pd: 8000}\nendpoint:\n  tags: 768\n", NULL, &e);
  ck_assert_msg (scaled != NULL, "%s", e ? e->message : "?");
}
END_TEST

/* --- the table of rejected files ----------------------------------------------------------------------- */

typedef struct {
  const char *name;
  const char *text; /* NULL: make a directory of that name */
} AuxFile;

typedef struct {
  const char *id;
  const char *text; /* written to c.yaml and loaded */
  gssize len; /* bytes of text, for texts with a NUL; 0 = up to the NUL */
  AuxFile aux[2]; /* other files the snippet includes */
  const char *where; /* the file the message must point into; NULL = c.yaml */
  int line, col;
  int code;
  const char *needle; /* a part of the message that says what is wrong; NULL = location only */
} BadCase;

/* The simplest valid link section, for cases whose mistake lies elsewhere. */
#define LINK "link:\n  gen: 2\n  lanes: 8\n"

static const BadCase bad_cases[] = {
  /* Syntax. An error with two marks is located at the earlier, where the construct opened, and names both, as
   * PyYAML does (issue #12 item 16). The flow sequence opened on line 3 column 10 ("  lanes: [") is still open
   * at the end of the stream, which libyaml notices at the start of the line after the last (4:1). */
  { "unclosed-bracket", "link:\n  gen: 2\n  lanes: [1, 2\n", 0, { { 0 } }, NULL, 3, 10, PS_ERROR_DATA,
    "flow sequence opened at 3:10 is not closed (found the end of the file at 4:1)" },
  /* Without a final newline the end of the stream is just past the last character, not on a line 2 that
   * does not exist: "link: [1" opens at column 7 and ends at 9. */
  { "unclosed-no-newline", "link: [1", 0, { { 0 } }, NULL, 1, 7, PS_ERROR_DATA,
    "flow sequence opened at 1:7 is not closed (found the end of the file at 1:9)" },
  { "unclosed-last-line", "link:\n  lanes: [1, 2", 0, { { 0 } }, NULL, 2, 10, PS_ERROR_DATA,
    "flow sequence opened at 2:10 is not closed (found the end of the file at 2:15)" },
  /* "link: {" opens at column 7; the end of the stream is on line 2. */
  { "unclosed-brace", "link: {gen: 2, lanes: 8\n", 0, { { 0 } }, NULL, 1, 7, PS_ERROR_DATA,
    "flow mapping opened at 1:7 is not closed (found the end of the file at 2:1)" },
  /* The bracket of line 2 ("  lanes: [", column 10) runs into the next key, "gen" at line 3 column 3: the key,
   * not the ':' after it where libyaml stops, is what was found. */
  { "unclosed-before-key", "link:\n  lanes: [1, 2\n  gen: 3\n", 0, { { 0 } }, NULL, 2, 10, PS_ERROR_DATA,
    "flow sequence opened at 2:10 is not closed (found a mapping key 'gen' at 3:3)" },
  /* A quote opened at column 7 of line 1 ('name: "') and never closed: the end of the file is line 3. */
  { "unclosed-quote", "name: \"abc\nlink: {gen: 2}\n", 0, { { 0 } }, NULL, 1, 7, PS_ERROR_DATA,
    "quoted scalar opened at 1:7 is not closed (found the end of the file at 3:1)" },
  /* "lanes" at column 3 matches no open indentation level (0 for link, 4 for gen): the key is unexpected in the
   * block mapping that began at 1:1. */
  { "bad-indent-less", "link:\n    gen: 2\n  lanes: 8\n", 0, { { 0 } }, NULL, 1, 1, PS_ERROR_DATA,
    "block mapping started at 1:1: did not find expected key (found a mapping key 'lanes' at 3:3)" },
  /* "   lanes" continues the plain scalar "2"; the ':' at column 9 then has no key it could belong to. */
  { "bad-indent-more", "link:\n  gen: 2\n   lanes: 8\n", 0, { { 0 } }, NULL, 3, 9, PS_ERROR_DATA, NULL },
  { "tab-indent", "link:\n\tgen: 2\n", 0, { { 0 } }, NULL, 2, 1, PS_ERROR_DATA, "cannot start any token" },
  /* "name: a: b": the second ':' is column 8. */
  { "mapping-value-context", "name: a: b\n", 0, { { 0 } }, NULL, 1, 8, PS_ERROR_DATA,
    "mapping values are not allowed" },

  /* Document shape. */
  { "empty-file", "", 0, { { 0 } }, NULL, 1, 1, PS_ERROR_DATA, "empty file" },
  { "comments-only", "# nothing here\n\n", 0, { { 0 } }, NULL, 1, 1, PS_ERROR_DATA, "empty file" },
  { "root-list", "# header\n- link\n- gen\n", 0, { { 0 } }, NULL, 2, 1, PS_ERROR_DATA,
    "must be a mapping of keys, not a sequence" },
  { "root-scalar", "# header\n  hello\n", 0, { { 0 } }, NULL, 2, 3, PS_ERROR_DATA,
    "must be a mapping of keys, not a scalar" },
  { "two-documents", "link:\n  gen: 2\n---\nlink:\n  gen: 3\n", 0, { { 0 } }, NULL, 3, 1, PS_ERROR_DATA,
    "more than one YAML document" },
  /* Bytes: "link:\n" is 6, "  gen: 2" 8 more, so the NUL is the 9th character of line 2. */
  { "nul-byte", "link:\n  gen: 2\0\n", 16, { { 0 } }, NULL, 2, 9, PS_ERROR_DATA, "NUL" },
  /* 0xFF can never start a UTF-8 sequence; it stands where the value would, column 8. */
  { "invalid-utf8", "link:\n  gen: \xff\n", 0, { { 0 } }, NULL, 2, 8, PS_ERROR_DATA, "UTF-8" },
  /* Columns count characters: 'name: "' is 7, é (2 bytes) the 8th, so the 0xFF after it is column 9 (byte 10). */
  { "invalid-utf8-after-multibyte", "name: \"\xc3\xa9\xff\"\n", 0, { { 0 } }, NULL, 1, 9, PS_ERROR_DATA, "UTF-8" },
  /* "? [a]": the key is the flow sequence at column 3. */
  { "non-scalar-key", "? [a]\n: 1\n", 0, { { 0 } }, NULL, 1, 3, PS_ERROR_DATA, "mapping keys must be scalars" },
  { "yaml-tag", "link: !custom 3\n", 0, { { 0 } }, NULL, 1, 7, PS_ERROR_DATA, "tag '!custom'" },

  /* Duplicate keys: the second occurrence is the mistake, the first is named. */
  { "duplicate-top", LINK "link:\n  gen: 3\n", 0, { { 0 } }, NULL, 4, 1, PS_ERROR_DATA,
    "duplicate key 'link' (first defined at line 1)" },
  { "duplicate-nested", "link:\n  gen: 2\n  lanes: 8\n  gen: 3\n", 0, { { 0 } }, NULL, 4, 3, PS_ERROR_DATA,
    "duplicate key 'gen' (first defined at line 2)" },

  /* Keys the table does not know. */
  { "unknown-key", LINK "  max_paylod: 256\n", 0, { { 0 } }, NULL, 4, 3, PS_ERROR_DATA,
    "unknown key 'link.max_paylod' (did you mean 'link.max_payload'?)" },
  { "unknown-nested-key", "endpoint:\n  rx_credits:\n    phh: 3\n", 0, { { 0 } }, NULL, 3, 5, PS_ERROR_DATA,
    "unknown key 'endpoint.rx_credits.phh' (did you mean 'endpoint.rx_credits.ph'?)" },
  { "misspelt-section", "lnik:\n  gen: 2\n", 0, { { 0 } }, NULL, 1, 1, PS_ERROR_DATA,
    "unknown key 'lnik' (did you mean 'link'?)" },
  { "unknown-section", LINK "telemetry:\n  on: true\n", 0, { { 0 } }, NULL, 4, 1, PS_ERROR_DATA,
    "unknown key 'telemetry'" },
  /* "link: 8": the value is column 7. */
  { "section-not-map", "link: 8\n", 0, { { 0 } }, NULL, 1, 7, PS_ERROR_DATA,
    "'link' must be a mapping of keys, not a scalar" },

  /* Wrong types; the value of "  gen: " is column 8, of "  lanes: " 10, of "  ecrc: " 9,
   * of "  iterations: " 15. A block mapping value starts at its first key (3:5). */
  { "string-for-int", "link:\n  gen: two\n", 0, { { 0 } }, NULL, 2, 8, PS_ERROR_DATA,
    "link.gen must be an integer, got 'two'" },
  { "quoted-number", "link:\n  gen: \"2\"\n", 0, { { 0 } }, NULL, 2, 8, PS_ERROR_DATA, "not a quoted string" },
  { "list-for-int", "link:\n  lanes: [8]\n", 0, { { 0 } }, NULL, 2, 10, PS_ERROR_DATA,
    "link.lanes must be an integer, not a sequence" },
  { "map-for-bool", "link:\n  ecrc:\n    on: true\n", 0, { { 0 } }, NULL, 3, 5, PS_ERROR_DATA,
    "link.ecrc must be true or false, not a mapping" },
  { "word-for-bool", "link:\n  ecrc: yes\n", 0, { { 0 } }, NULL, 2, 9, PS_ERROR_DATA, "got 'yes'" },
  { "float-for-int", "benchmark:\n  iterations: 2.5\n", 0, { { 0 } }, NULL, 2, 15, PS_ERROR_DATA, "got '2.5'" },
  /* "  modes: [read, copy]": '[' is column 10, "copy" column 17. */
  { "unknown-mode", "benchmark:\n  modes: [read, copy]\n", 0, { { 0 } }, NULL, 2, 17, PS_ERROR_DATA,
    "unknown mode copy" },

  /* Out of range; "  tags: " puts the value at column 9, "  transfer_bytes: " at 19. */
  { "gen-7", "link:\n  gen: 7\n", 0, { { 0 } }, NULL, 2, 8, PS_ERROR_DATA, "between 1 and 6 (got 7)" },
  { "tags-0", "endpoint:\n  tags: 0\n", 0, { { 0 } }, NULL, 2, 9, PS_ERROR_DATA, "between 1 and 15360 (got 0)" },
  /* 14-bit tags with Tag[13:10] = 0 are not 14-bit tags (spec §2.2.6.2): 2^14 - 2^10 = 15,360 usable. */
  { "tags-15361", "endpoint:\n  tags: 15361\n", 0, { { 0 } }, NULL, 2, 9, PS_ERROR_DATA, "(got 15361)" },
  /* 10-bit tags (768, spec §2.2.6.2) need no flit mode; 769 does, and the stream workload ("  tags: " -> 9). */
  { "tags-769", "link:\n  gen: 4\n  lanes: 8\nendpoint:\n  tags: 769\n", 0, { { 0 } }, NULL, 5, 9, PS_ERROR_DATA,
    "endpoint.tags 769 needs 14-bit tags" },
  /* A switch port's data link layer latency is a part of its port-to-port latency, when the user gives both (an
   * unset one follows the latency, test_switch_dll_default); the error names the DLL latency's node
   * ("  dll_latency_ns: " -> 19). */
  { "switch-dll", LINK "switch:\n  latency_ns: 40\n  dll_latency_ns: 50\n", 0, { { 0 } }, NULL, 6, 19, PS_ERROR_DATA,
    "switch.dll_latency_ns 50 is a part of switch.latency_ns (40)" },
  /* Straddle needs two 256-bit segments a beat ("  straddle: " -> 13). */
  { "straddle-256", LINK "endpoint:\n  datapath_bits: 256\n  straddle: true\n", 0, { { 0 } }, NULL, 6, 13,
    PS_ERROR_DATA, "endpoint.straddle needs a 512- or 1024-bit datapath" },
  /* MRRS 512 / RCB 64 + 1 = 9 completions one read may come back as; 8 header slots cannot take it
   * ("  completion_buffer_headers: " -> 30). */
  { "cplhdr-below-read", LINK "endpoint:\n  completion_buffer_headers: 8\n", 0, { { 0 } }, NULL, 5, 30,
    PS_ERROR_DATA, "smaller than the 9 completions one read request may come back as" },
  { "negative-transfer", "benchmark:\n  transfer_bytes: -4096\n", 0, { { 0 } }, NULL, 2, 19, PS_ERROR_DATA,
    "(got -4096)" },
  { "int-overflow", "benchmark:\n  transfer_bytes: 99999999999999999999\n", 0, { { 0 } }, NULL, 2, 19,
    PS_ERROR_DATA, "does not fit in 64 bits" },

  /* Values the spec forbids; "  max_payload: " puts the value at 16, "  read_completion_boundary: " at 29. */
  { "lanes-3", "link:\n  gen: 2\n  lanes: 3\n", 0, { { 0 } }, NULL, 3, 10, PS_ERROR_DATA,
    "link.lanes must be 1, 2, 4, 8, 12, 16 or 32 (got 3)" },
  { "mps-100", "link:\n  max_payload: 100\n", 0, { { 0 } }, NULL, 2, 16, PS_ERROR_DATA,
    "power of two from 128 to 4096 (got 100)" },
  { "mps-8192", "link:\n  max_payload: 8192\n", 0, { { 0 } }, NULL, 2, 16, PS_ERROR_DATA,
    "power of two from 128 to 4096 (got 8192)" },
  { "rcb-32", "link:\n  read_completion_boundary: 32\n", 0, { { 0 } }, NULL, 2, 29, PS_ERROR_DATA,
    "must be 64 or 128 (got 32)" },

  /* Combinations; each points at the value that makes it impossible ("  completion_buffer_bytes: " -> 28,
   * "  completion_bytes: " -> 21). */
  { "cplbuf-below-mrrs", LINK "  max_read_request: 1024\nendpoint:\n  completion_buffer_bytes: 512\n", 0,
    { { 0 } }, NULL, 6, 28, PS_ERROR_DATA, "smaller than one read request" },
  { "cpl-bytes-off-rcb", LINK "  max_payload: 256\nhost:\n  completion_bytes: 96\n", 0, { { 0 } }, NULL, 6, 21,
    PS_ERROR_DATA, "multiple of the read completion boundary (64)" },
  /* 128 is a multiple of RCB 64 and below MPS 256, but neither policy of the completer: same layout, 6:21. */
  { "cpl-bytes-between", LINK "  max_payload: 256\nhost:\n  completion_bytes: 128\n", 0, { { 0 } }, NULL, 6, 21,
    PS_ERROR_DATA, "other chunk sizes are not modelled" },

  /* Credit advertisements below the spec minimum (§3.4.2): PD must hold one MPS TLP, 256 / 16 = 16 credits, so
   * 15 is refused at the value ("    pd: " -> 9); CplD one completion of min(MPS 512, MRRS 256) = 256 bytes, 16
   * credits ("    cpld: " -> 11). */
  { "pd-below-mps", LINK "  max_payload: 256\nhost:\n  rx_credits:\n    pd: 15\n", 0, { { 0 } }, NULL, 7, 9,
    PS_ERROR_DATA, "host.rx_credits.pd (15) is below the spec minimum of 16 credits" },
  { "cpld-below-mrrs", LINK "  max_payload: 512\n  max_read_request: 256\nhost:\n  rx_credits:\n    cpld: 15\n",
    0, { { 0 } }, NULL, 8, 11, PS_ERROR_DATA, "host.rx_credits.cpld (15) is below the spec minimum of 16" },
  /* Issue #39. An endpoint advertises infinite completion credits (Base 2.1 Table 2-37): any finite value is
   * refused at it ("    cplh: " -> 11). Without scaled flow control (Gen2 here) at most 127 header and 2047 data
   * credits ("    ph: " -> 9, "    pd: " -> 9); with a port supporting 16 GT/s they pass. More than 256 tags
   * need 10-bit tags, of the 16 GT/s revision ("  tags: " -> 9). */
  { "endpoint-cplh-finite", LINK "endpoint:\n  rx_credits:\n    cplh: 4\n", 0, { { 0 } }, NULL, 6, 11, PS_ERROR_DATA,
    "endpoint.rx_credits.cplh is 4, finite: an endpoint advertises infinite completion credits" },
  { "unscaled-ph-128", LINK "host:\n  rx_credits:\n    ph: 128\n", 0, { { 0 } }, NULL, 6, 9, PS_ERROR_DATA,
    "host.rx_credits.ph (128) is above the 127 credits" },
  { "unscaled-pd-2048", LINK "host:\n  rx_credits:\n    pd: 2048\n", 0, { { 0 } }, NULL, 6, 9, PS_ERROR_DATA,
    "host.rx_credits.pd (2048) is above the 2047 credits" },
  { "tags-257-gen2", LINK "endpoint:\n  tags: 257\n", 0, { { 0 } }, NULL, 5, 9, PS_ERROR_DATA,
    "endpoint.tags 257 needs 10-bit tags" },
  /* The default MPS (128) needs 8 posted-data credits. */
  { "pd-below-default-mps", LINK "endpoint:\n  rx_credits:\n    pd: 7\n", 0, { { 0 } }, NULL, 6, 9, PS_ERROR_DATA,
    "minimum of 8 credits" },

  /* Anchors and aliases: the first of them is the mistake ("&g" at 2:8, "*nope" at 3:10), whether or not the
   * other half exists. */
  { "alias", "link:\n  gen: &g 2\n  lanes: *g\n", 0, { { 0 } }, NULL, 2, 8, PS_ERROR_DATA,
    "YAML anchor '&g': anchors and aliases are not supported" },
  { "alias-only", "link:\n  gen: 2\n  lanes: *nope\n", 0, { { 0 } }, NULL, 3, 10, PS_ERROR_DATA,
    "YAML alias '*nope'" },
  { "anchor-only", "link: &l\n  gen: 2\n  lanes: 8\n", 0, { { 0 } }, NULL, 1, 7, PS_ERROR_DATA,
    "YAML anchor '&l'" },
  /* "a: " then 40 '[': the k-th bracket is at column 3 + k and depth k, so the first too deep (33) is at 36. */
  { "depth-33",
    "a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n", 0, { { 0 } }, NULL, 1,
    36, PS_ERROR_DATA, "nesting deeper than 32" },

  { "missing-required", "link:\n  gen: 2\n", 0, { { 0 } }, NULL, 1, 1, PS_ERROR_DATA,
    "required key 'link.lanes' is missing" },
  /* An empty value sits where it is missing, just past "  gen:" (2:7), not at the key that follows. */
  { "empty-value", "link:\n  gen:\n  lanes: 8\n", 0, { { 0 } }, NULL, 2, 7, PS_ERROR_DATA,
    "link.gen has no value" },

  /* Includes. "include: " puts the path at column 10; in "include: [a.yaml, nope.yaml]" the second is at 19. */
  { "include-missing", "include: nope.yaml\n" LINK, 0, { { 0 } }, NULL, 1, 10, PS_ERROR_NOINPUT,
    "nope.yaml' does not exist" },
  { "include-missing-in-list", "include: [a.yaml, nope.yaml]\n" LINK, 0, { { "a.yaml", "endpoint:\n  tags: 16\n" } },
    NULL, 1, 19, PS_ERROR_NOINPUT, "nope.yaml' does not exist" },
  /* c -> a -> b -> a: the include that closes the cycle is b's. */
  { "include-cycle", "include: a.yaml\n" LINK, 0, { { "a.yaml", "include: b.yaml\n" }, { "b.yaml", "include: a.yaml\n" } },
    "b.yaml", 1, 10, PS_ERROR_DATA, "include cycle" },
  { "include-self", "include: c.yaml\n" LINK, 0, { { 0 } }, NULL, 1, 10, PS_ERROR_DATA, "include cycle" },
  { "include-directory", "include: sub\n" LINK, 0, { { "sub", NULL } }, NULL, 1, 10, PS_ERROR_NOINPUT,
    "sub' is not a regular file" },
  /* A text file is one multi-line scalar: the error is in that file, where its text starts. */
  { "include-text", "include: notes.txt\n" LINK, 0, { { "notes.txt", "These are notes,\nnot a config.\n" } },
    "notes.txt", 1, 1, PS_ERROR_DATA, "must be a mapping of keys, not a scalar" },
  { "include-binary", "include: logo.png\n" LINK, 0, { { "logo.png", "\x89PNG\r\n\x1a\n" } }, "logo.png", 1, 1,
    PS_ERROR_DATA, "UTF-8" },
  { "include-not-a-path", "include: {a: 1}\n" LINK, 0, { { 0 } }, NULL, 1, 10, PS_ERROR_DATA,
    "include must be a file path" },
  /* A file that exists and cannot be read: /proc/self/mem is a regular file whose offset 0 is never mapped, so
   * the read fails with EIO even for root (who can read any chmod 000 file). Located at the entry, column 10. */
  { "include-unreadable", "include: /proc/self/mem\n" LINK, 0, { { 0 } }, NULL, 1, 10, PS_ERROR_NOINPUT,
    "included file /proc/self/mem: cannot read" },
  /* Errors inside an included file point into it: "  lanes: 3" -> 2:10 of base.yaml. */
  { "error-in-include", "include: base.yaml\nlink:\n  gen: 2\n", 0, { { "base.yaml", "link:\n  lanes: 3\n" } },
    "base.yaml", 2, 10, PS_ERROR_DATA, "link.lanes must be" },

  /* The chaining DMA's descriptor limits (AN-456: 16-byte descriptors, a 16-bit count in the table header), named
   * by their keys at the value the file gives, with the value that would fix them (issue #12 item 15). LINK ends
   * at line 3, so "dma:" is line 4 and the values of "  desc_per_fetch: " stand at column 19 of line 5. */
  { "desc-fetch-above-fifo", LINK "dma:\n  desc_per_fetch: 64\n  desc_fifo_entries: 32\n", 0, { { 0 } }, NULL, 5, 19,
    PS_ERROR_DATA, "dma.desc_per_fetch (64) is more than dma.desc_fifo_entries (32): the descriptor FIFO must hold a "
    "whole fetch; raise dma.desc_fifo_entries to 64 or lower dma.desc_per_fetch to 32" },
  /* 64 descriptors x 16 bytes = 1024 bytes in one MRd, above the default Max_Read_Request_Size of 512: at most
   * 512 / 16 = 32 per fetch, or MRRS 1024. */
  { "desc-fetch-above-mrrs", LINK "dma:\n  desc_per_fetch: 64\n  desc_fifo_entries: 64\n", 0, { { 0 } }, NULL, 5, 19,
    PS_ERROR_DATA, "dma.desc_per_fetch (64) descriptors of 16 bytes are 1024 bytes, more than one read request "
    "(link.max_read_request 512); lower dma.desc_per_fetch to 32 or raise link.max_read_request to 1024" },
  /* 1 MiB in 4-byte descriptors is 262144 of them; 1048576 / 65535 = 16.0002, so 17 bytes, 20 in whole DWs.
   * "  desc_max_bytes: " puts the value at column 19. */
  { "descriptors-per-transfer", LINK "dma:\n  desc_max_bytes: 4\nbenchmark:\n  transfer_bytes: 1048576\n", 0,
    { { 0 } }, NULL, 5, 19, PS_ERROR_DATA, "benchmark.transfer_bytes (1048576) in descriptors of dma.desc_max_bytes "
    "(4) takes 262144 descriptors; AN-456 counts at most 65535 per transfer: raise dma.desc_max_bytes to at least 20" },
  /* Two channels share 1 GB: 2^29 bytes each; one byte-quad more does not fit. "  transfer_bytes: " -> column 19. */
  { "transfer-above-buffer", LINK "dma:\n  channels: 2\nbenchmark:\n  transfer_bytes: 536870916\n", 0, { { 0 } }, NULL,
    7, 19, PS_ERROR_DATA, "benchmark.transfer_bytes (536870916) is more than a channel's buffer, 536870912 bytes" },
};

START_TEST (test_bad_config)
{
  const BadCase *c = &bad_cases[_i];
  g_autofree char *dir = case_dir (c->id);
  for (guint i = 0; i < G_N_ELEMENTS (c->aux); i++) {
    if (!c->aux[i].name)
      continue;
    if (c->aux[i].text) {
      g_autofree char *p = write_bytes (dir, c->aux[i].name, c->aux[i].text, -1);
    } else {
      g_autofree char *p = g_build_filename (dir, c->aux[i].name, NULL);
      ck_assert_int_eq (g_mkdir_with_parents (p, 0700), 0);
    }
  }
  g_autofree char *path = write_bytes (dir, "c.yaml", c->text, c->len ? c->len : -1);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (path, NULL, &e);
  ck_assert_msg (cfg == NULL && e != NULL, "%s: accepted", c->id);
  ck_assert_msg (e->domain == PS_ERROR, "%s: error domain %s", c->id, g_quark_to_string (e->domain));
  ck_assert_msg (e->code == c->code, "%s: code %d, want %d (%s)", c->id, e->code, c->code, e->message);

  g_autofree char *where = g_build_filename (dir, c->where ? c->where : "c.yaml", NULL);
  g_autofree char *prefix = g_strdup_printf ("%s:%d:%d: error: ", where, c->line, c->col);
  ck_assert_msg (g_str_has_prefix (e->message, prefix), "%s: got '%s', want prefix '%s'", c->id, e->message, prefix);
  ck_assert_msg (!c->needle || strstr (e->message, c->needle), "%s: '%s' does not say '%s'", c->id, e->message,
                 c->needle);
  /* The command line prints the message as one line. */
  ck_assert_msg (!strchr (e->message, '\n'), "%s: message spans lines: '%s'", c->id, e->message);
}
END_TEST

/* --- files that cannot be read ------------------------------------------------------------------------- */

START_TEST (test_missing_config)
{
  g_autofree char *dir = case_dir ("missing");
  g_autofree char *path = g_build_filename (dir, "none.yaml", NULL);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (path, NULL, &e);
  ck_assert_ptr_null (cfg);
  ck_assert_int_eq (e->code, PS_ERROR_NOINPUT);
  ck_assert_msg (g_str_has_prefix (e->message, "pciesim: error: ") && strstr (e->message, path), "%s", e->message);

  /* A directory named as the config is unreadable input too, not bad data. */
  g_autoptr (GError) e2 = NULL;
  g_autoptr (PsConfig) cfg2 = ps_config_load (dir, NULL, &e2);
  ck_assert_ptr_null (cfg2);
  ck_assert_int_eq (e2->code, PS_ERROR_NOINPUT);
}
END_TEST

START_TEST (test_too_large)
{
  g_autofree char *dir = case_dir ("large");
  /* A comment line just past the limit: valid YAML, so only the size guard can reject it. */
  gsize n = YTREE_MAX_FILE_BYTES + 1;
  g_autofree char *text = g_malloc (n + 1);
  memset (text, 'x', n);
  text[0] = '#';
  text[n - 1] = '\n';
  text[n] = '\0';
  g_autofree char *path = write_bytes (dir, "c.yaml", text, (gssize) n);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (path, NULL, &e);
  ck_assert_ptr_null (cfg);
  ck_assert_int_eq (e->code, PS_ERROR_DATA);
  g_autofree char *prefix = g_strdup_printf ("%s:1:1: error: ", path);
  ck_assert_msg (g_str_has_prefix (e->message, prefix), "%s", e->message);
}
END_TEST

/* Loading is linear: files just under the size limit that drive libyaml's quadratic paths (deep flow nesting,
 * many anchors) must be refused at their first offending node, well inside Check's timeout. */
START_TEST (test_pathological_fast)
{
  g_autofree char *dir = case_dir ("pathological");
  gsize n = YTREE_MAX_FILE_BYTES - 16;
  g_autoptr (GString) deep = g_string_new ("a: ");
  while (deep->len < n)
    g_string_append_c (deep, '[');
  g_string_append_c (deep, '\n');
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, deep->str, NULL, &e);
  ck_assert_ptr_null (cfg);
  /* As in depth-33 of the table: the 33rd '[' is column 36. */
  g_autofree char *prefix = g_strdup_printf ("%s/c.yaml:1:36: error: nesting deeper than 32", dir);
  ck_assert_msg (g_str_has_prefix (e->message, prefix), "%s", e->message);

  g_autoptr (GString) anchors = g_string_new ("name: x\nlist: [");
  for (guint i = 0; anchors->len < n; i++)
    g_string_append_printf (anchors, "&a%u x, ", i);
  g_string_append (anchors, "y]\n");
  g_autoptr (GError) e2 = NULL;
  g_autoptr (PsConfig) cfg2 = load_text (dir, anchors->str, NULL, &e2);
  ck_assert_ptr_null (cfg2);
  /* "list: [" puts the first anchor at 2:8. */
  g_autofree char *prefix2 = g_strdup_printf ("%s/c.yaml:2:8: error: YAML anchor '&a0'", dir);
  ck_assert_msg (g_str_has_prefix (e2->message, prefix2), "%s", e2->message);

  /* A flat mapping of ~80k keys whose last key repeats the first: found at its line, in linear time. */
  g_autoptr (GString) keys = g_string_new (NULL);
  guint lines = 0;
  while (keys->len < n - 16)
    g_string_append_printf (keys, "k%u: 1\n", lines++);
  g_string_append (keys, "k0: 2\n");
  g_autoptr (GError) e3 = NULL;
  g_autoptr (PsConfig) cfg3 = load_text (dir, keys->str, NULL, &e3);
  ck_assert_ptr_null (cfg3);
  g_autofree char *prefix3
      = g_strdup_printf ("%s/c.yaml:%u:1: error: duplicate key 'k0' (first defined at line 1)", dir, lines + 1);
  ck_assert_msg (g_str_has_prefix (e3->message, prefix3), "%s", e3->message);

  /* Without the repeat, the map is built and merged whole before the first key is found unknown. */
  g_string_truncate (keys, keys->len - strlen ("k0: 2\n"));
  g_autoptr (GError) e4 = NULL;
  g_autoptr (PsConfig) cfg4 = load_text (dir, keys->str, NULL, &e4);
  ck_assert_ptr_null (cfg4);
  g_autofree char *prefix4 = g_strdup_printf ("%s/c.yaml:1:1: error: unknown key 'k0'", dir);
  ck_assert_msg (g_str_has_prefix (e4->message, prefix4), "%s", e4->message);
}
END_TEST

/* --- includes ------------------------------------------------------------------------------------------ */

START_TEST (test_include_override)
{
  g_autofree char *dir = case_dir ("include-override");
  g_autofree char *b = write_bytes (dir, "base.yaml",
                                   "link:\n  max_payload: 256\n  max_read_request: 1024\n  ecrc: true\n"
                                   "endpoint:\n  tags: 64\n",
                                   -1);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg
      = load_text (dir, "include: base.yaml\nlink:\n  gen: 2\n  lanes: 8\n  max_payload: 512\n", NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  ck_assert_int_eq (cfg->link.max_payload, 512); /* the including file wins */
  /* link was merged key by key: base's other link keys survive the including file's link: block. */
  ck_assert_int_eq (cfg->link.max_read_request, 1024);
  ck_assert (cfg->link.ecrc);
  ck_assert_int_eq (cfg->link.gen, 2);
  ck_assert_int_eq (cfg->endpoint.tags, 64);
}
END_TEST

START_TEST (test_include_list_order)
{
  g_autofree char *dir = case_dir ("include-order");
  g_autofree char *a = write_bytes (dir, "a.yaml", "link:\n  max_payload: 256\nendpoint:\n  tags: 16\n", -1);
  g_autofree char *b = write_bytes (dir, "b.yaml", "endpoint:\n  tags: 64\n  rx_credits:\n    ph: 8\n", -1);
  g_autofree char *x = write_bytes (dir, "x.yaml", "endpoint:\n  rx_credits:\n    pd: 100\n", -1);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, "include: [a.yaml, b.yaml, x.yaml]\n" LINK, NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  ck_assert_int_eq (cfg->endpoint.tags, 64); /* b after a */
  ck_assert_int_eq (cfg->link.max_payload, 256); /* only a sets it */
  /* Two levels down, b's and x's rx_credits merge rather than x replacing b's. */
  ck_assert_int_eq (cfg->endpoint.rx_credits.ph, 8);
  ck_assert_int_eq (cfg->endpoint.rx_credits.pd, 100);

  /* The other order: a comes last and wins. */
  g_autoptr (GError) e2 = NULL;
  g_autoptr (PsConfig) cfg2 = load_text (dir, "include: [b.yaml, a.yaml]\n" LINK, NULL, &e2);
  ck_assert_msg (cfg2 != NULL, "%s", e2 ? e2->message : "");
  ck_assert_int_eq (cfg2->endpoint.tags, 16);
}
END_TEST

START_TEST (test_include_nested_chain)
{
  /* c includes b includes a: each level overrides the one it includes. */
  g_autofree char *dir = case_dir ("include-chain");
  g_autofree char *a = write_bytes (dir, "a.yaml", "endpoint:\n  tags: 16\n  datapath_bits: 256\n"
                                                  "benchmark:\n  iterations: 5\n", -1);
  g_autofree char *b = write_bytes (dir, "b.yaml", "include: a.yaml\nendpoint:\n  tags: 64\n", -1);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, "include: b.yaml\n" LINK "benchmark:\n  iterations: 7\n", NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  ck_assert_int_eq (cfg->endpoint.tags, 64);
  ck_assert_int_eq (cfg->endpoint.datapath_bits, 256);
  ck_assert_int_eq (cfg->benchmark.iterations, 7);
}
END_TEST

START_TEST (test_include_relative_paths)
{
  /* conf/sub/c.yaml includes ../common/base.yaml, which includes more/deep.yaml. A decoy common/base.yaml sits
   * where the same relative path would lead from the working directory, so resolving against the cwd instead
   * of the including file's directory gives a different tags value. */
  g_autofree char *dir = case_dir ("include-relative");
  g_autofree char *c = write_bytes (dir, "conf/sub/c.yaml", "include: ../common/base.yaml\n" LINK, -1);
  g_autofree char *base
      = write_bytes (dir, "conf/common/base.yaml", "include: more/deep.yaml\nendpoint:\n  tags: 48\n", -1);
  g_autofree char *deep = write_bytes (dir, "conf/common/more/deep.yaml", "benchmark:\n  iterations: 3\n", -1);
  g_autofree char *decoy = write_bytes (dir, "common/base.yaml", "endpoint:\n  tags: 99\n", -1);
  g_autofree char *elsewhere = g_build_filename (dir, "elsewhere", NULL);
  ck_assert_int_eq (g_mkdir_with_parents (elsewhere, 0700), 0);

  g_autofree char *old_cwd = g_get_current_dir ();
  ck_assert_int_eq (chdir (elsewhere), 0);
  g_autoptr (GError) e = NULL;
  /* The config itself is named relative to the cwd, as a user would type it. */
  g_autoptr (PsConfig) cfg = ps_config_load ("../conf/sub/c.yaml", NULL, &e);
  ck_assert_int_eq (chdir (old_cwd), 0);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  ck_assert_int_eq (cfg->endpoint.tags, 48);
  ck_assert_int_eq (cfg->benchmark.iterations, 3);
  ck_assert_str_eq (cfg->name, "c");
}
END_TEST

/* --- --set --------------------------------------------------------------------------------------------- */

START_TEST (test_set_overrides)
{
  g_autofree char *dir = case_dir ("set-overrides");
  g_autofree char *b = write_bytes (dir, "base.yaml", "endpoint:\n  tags: 64\nlink:\n  max_payload: 256\n", -1);
  const char *sets[] = { "link.max_payload=512", /* from the include */
                         "link.gen=3", /* from the file */
                         "endpoint.tags=128", "endpoint.tags=16", /* later --set wins */
                         "host.read_latency_ns=700", /* a section the files never mention */
                         "benchmark.modes=[read,write]", /* YAML value: a list */
                         "link={max_read_request: 1024}", /* a mapping merges into the section */
                         NULL };
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, "include: base.yaml\n" LINK, sets, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  ck_assert_int_eq (cfg->link.max_payload, 512);
  ck_assert_int_eq (cfg->link.gen, 3);
  ck_assert_int_eq (cfg->link.lanes, 8);
  ck_assert_int_eq (cfg->link.max_read_request, 1024);
  ck_assert_int_eq (cfg->endpoint.tags, 16);
  ck_assert_double_eq (cfg->host.read_latency_ns, 700);
  ck_assert_uint_eq (cfg->benchmark.modes, PS_MODE_READ | PS_MODE_WRITE);
}
END_TEST

typedef struct {
  const char *set;
  int code;
  const char *prefix; /* exact start of the message */
  const char *needle;
} BadSet;

/* Columns of a --set count within KEY=VALUE: "link.lanes=3" has its value at column 12. */
static const BadSet bad_sets[] = {
  { "link.lans=8", PS_ERROR_DATA, "--set link.lans=8:1:1: error: ", "(did you mean 'link.lanes'?)" },
  { "lnk.lanes=8", PS_ERROR_DATA, "--set lnk.lanes=8:1:1: error: ", "(did you mean 'link.lanes'?)" },
  { "foo", PS_ERROR_USAGE, "pciesim: error: ", "--set foo: expected KEY.PATH=VALUE" },
  { "=3", PS_ERROR_USAGE, "pciesim: error: ", "expected KEY.PATH=VALUE" },
  { "link.lanes=3", PS_ERROR_DATA, "--set link.lanes=3:1:12: error: ", "link.lanes must be 1, 2, 4, 8, 12, 16 or 32" },
  { "link.gen=", PS_ERROR_DATA, "--set link.gen=:1:10: error: ", "link.gen has no value" },
  /* "link.gen=[1": the value's '[' is column 10 of KEY=VALUE and the text ends at 12, still on line 1. */
  { "link.gen=[1", PS_ERROR_DATA, "--set link.gen=[1:1:10: error: ",
    "flow sequence opened at 1:10 is not closed (found the end of the value at 1:12)" },
  /* "link.gen=a: b: c": the second ':' is column 14. */
  { "link.gen=a: b: c", PS_ERROR_DATA, "--set link.gen=a: b: c:1:14: error: ", "mapping values are not allowed" },
  { "link.gen.x=1", PS_ERROR_DATA, "--set link.gen.x=1:1:1: error: ", "unknown key 'link.gen.x'" },
  /* Keys that would change nothing where they are given (issue #26). "link={gen: 6, flit_mode: false}": the
   * false is column 26. */
  { "link={gen: 6, flit_mode: false}", PS_ERROR_DATA, "--set link={gen: 6, flit_mode: false}:1:26: error: ",
    "runs flit mode only" },
  { "switch.latency_ns=500", PS_ERROR_DATA, "--set switch.latency_ns=500:1:1: error: ", "has no switch" },
  { "fabric.active_flows=1", PS_ERROR_DATA, "--set fabric.active_flows=1:1:1: error: ", "has no topology" },
  /* "cpu.interrupt={kind: fixed, median_ns: 5}": the 5 is column 40. */
  { "cpu.interrupt={kind: fixed, median_ns: 5}", PS_ERROR_DATA, "--set cpu.interrupt={kind: fixed, median_ns: 5}:1:40: "
    "error: ", "cpu.interrupt.median_ns is not used by cpu.interrupt.kind fixed" },
  { "switch.pool.pd=1", PS_ERROR_DATA, "--set switch.pool.pd=1:1:16: error: ", "only used with switch.buffer: shared" },
  /* "switch={buffer: shared, pool: {pd: 1}}": the 1 is column 36; the default MPS, 128, needs 8 credits. */
  { "switch={buffer: shared, pool: {pd: 1}}", PS_ERROR_DATA, "--set switch={buffer: shared, pool: {pd: 1}}:1:36: "
    "error: ", "holds less than one max-payload TLP" },
};

START_TEST (test_set_bad)
{
  const BadSet *s = &bad_sets[_i];
  g_autofree char *dir = case_dir ("set-bad");
  const char *sets[] = { s->set, NULL };
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, LINK, sets, &e);
  ck_assert_msg (cfg == NULL && e, "--set %s accepted", s->set);
  ck_assert_msg (e->code == s->code, "--set %s: code %d, want %d (%s)", s->set, e->code, s->code, e->message);
  ck_assert_msg (g_str_has_prefix (e->message, s->prefix), "--set %s: got '%s', want prefix '%s'", s->set,
                 e->message, s->prefix);
  ck_assert_msg (strstr (e->message, s->needle), "--set %s: '%s' does not say '%s'", s->set, e->message, s->needle);
}
END_TEST

/* --- defaults ------------------------------------------------------------------------------------------ */

typedef enum { T_INT, T_DOUBLE, T_BOOL } FieldType;

typedef struct {
  const char *key;
  const char *documented; /* the default column of `pciesim keys --format markdown` */
  FieldType type;
  size_t offset;
  double value; /* what a config that omits the key gets */
} Default;

#define F(field) offsetof (PsConfig, field)

/* Values from the key table's documentation (the spec's reset values and AN-456's settings). */
static const Default defaults[] = {
  { "link.max_payload", "128", T_INT, F (link.max_payload), 128 },
  { "link.max_read_request", "512", T_INT, F (link.max_read_request), 512 },
  { "link.read_completion_boundary", "64", T_INT, F (link.read_completion_boundary), 64 },
  { "link.ecrc", "false", T_BOOL, F (link.ecrc), 0 },
  { "link.address_bits", "32", T_INT, F (link.address_bits), 32 },
  { "link.flight_ns", "1", T_DOUBLE, F (link.flight_ns), 1 },
  { "link.replay_buffer_bytes", "0", T_INT, F (link.replay_buffer_bytes), 0 },
  { "link.updatefc_period_ns", "30000", T_DOUBLE, F (link.updatefc_period_ns), 30000 },
  { "endpoint.tags", "32", T_INT, F (endpoint.tags), 32 },
  /* The test's link is Gen2 x4: pcie-protocol.md §7 gives "64 b @ 250, or 128 b @ 125"; the first is taken. */
  { "endpoint.datapath_bits", "(per link)", T_INT, F (endpoint.datapath_bits), 64 },
  { "endpoint.clock_mhz", "(per link)", T_DOUBLE, F (endpoint.clock_mhz), 250 },
  { "endpoint.soft_ip", "false", T_BOOL, F (endpoint.soft_ip), 0 },
  { "endpoint.rx_credits.cplh", "0", T_INT, F (endpoint.rx_credits.cplh), 0 },
  { "endpoint.completion_buffer_bytes", "0", T_INT, F (endpoint.completion_buffer_bytes), 0 },
  { "host.read_latency_ns", "500", T_DOUBLE, F (host.read_latency_ns), 500 },
  { "host.completion_bytes", "0", T_INT, F (host.completion_bytes), 0 },
  { "benchmark.transfer_bytes", "102400", T_INT, F (benchmark.transfer_bytes), 102400 },
  { "benchmark.iterations", "20", T_INT, F (benchmark.iterations), 20 },
};

/* The default cell of `key`'s row in the Markdown key table, or NULL. */
static char *
documented_default (const char *table, const char *key)
{
  g_autofree char *row_start = g_strdup_printf ("| `%s` |", key);
  g_auto (GStrv) lines = g_strsplit (table, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    if (!g_str_has_prefix (lines[i], row_start))
      continue;
    g_auto (GStrv) cells = g_strsplit (lines[i], " | ", -1);
    if (g_strv_length (cells) < 3)
      return NULL;
    return g_strndup (cells[2] + 1, strlen (cells[2]) - 2); /* strip the backticks */
  }
  return NULL;
}

START_TEST (test_defaults)
{
  g_autofree char *dir = case_dir ("defaults");
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, "link:\n  gen: 2\n  lanes: 4\n", NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  g_autoptr (GString) table = g_string_new (NULL);
  ps_config_print_keys (table, TRUE, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++) {
    const Default *d = &defaults[i];
    ck_assert_msg (ps_config_key_exists (d->key), "%s is not a key", d->key);
    g_autofree char *doc = documented_default (table->str, d->key);
    ck_assert_msg (doc && strcmp (doc, d->documented) == 0, "%s: documented default '%s', want '%s'", d->key,
                   doc ? doc : "(no row)", d->documented);
    const char *field = (const char *) cfg + d->offset;
    double got = d->type == T_INT ? (double) *(const int64_t *) field
                 : d->type == T_DOUBLE ? *(const double *) field
                                       : (double) *(const bool *) field;
    ck_assert_msg (got == d->value, "%s: default %g, want %g", d->key, got, d->value);
  }
  ck_assert_uint_eq (cfg->benchmark.modes, PS_MODE_ALL);
  ck_assert_str_eq (cfg->name, "c"); /* the file name without its extension */
  ck_assert (!cfg->published.present);
  ck_assert (isnan (cfg->published.dma_read_mbps));
  ck_assert_ptr_null (cfg->published.source);
}
END_TEST

/* A datapath not given follows the link (issue #12 item 7). Expected pairs are read off pcie-protocol.md §7's
 * table (the first option of a cell; on a tie of bits x MHz, the narrower); beyond it, the narrowest width whose
 * raw rate (bits / 8 x MHz) covers lanes x §1's per-lane MB/s, at 250 MHz for Gen1-3 and at the 500 MHz top of
 * the Gen4/5 line (512 or 1024 bits) from Gen4 on, by hand: Gen1 x12 needs 3000 MB/s, 128 bits give 4000; Gen3 x16
 * needs 15754, 512 bits give 16000; Gen5 x16 needs 63008, 1024 bits at 500 give 64000; Gen6 x16 (8000 MB/s a
 * lane, 128000) is more than any width gives. A half that is given picks the cell's option that has it. */
typedef struct {
  const char *link; /* YAML of the config */
  int64_t bits;
  double mhz;
  const char *rule; /* PsKeyOrigin.rule of a defaulted half */
} DatapathCase;

static const DatapathCase datapath_cases[] = {
  { "link: {gen: 1, lanes: 1}\n", 64, 125, "hard IP for Gen1 x1, pcie-protocol.md §7" },
  { "link: {gen: 1, lanes: 8}\n", 64, 250, "hard IP for Gen1 x8, pcie-protocol.md §7" },
  { "link: {gen: 2, lanes: 8}\n", 128, 250, "hard IP for Gen2 x8, pcie-protocol.md §7" },
  { "link: {gen: 3, lanes: 4}\n", 128, 250, "hard IP for Gen3 x4, pcie-protocol.md §7" },
  { "link: {gen: 3, lanes: 8}\n", 256, 250, "hard IP for Gen3 x8, pcie-protocol.md §7" },
  { "link: {gen: 4, lanes: 16}\n", 512, 500,
    "hard IP for Gen4 x16, by pcie-protocol.md §7's rule (narrowest covering the link)" },
  { "link: {gen: 5, lanes: 2}\n", 512, 500,
    "hard IP for Gen5 x2, by pcie-protocol.md §7's rule (narrowest covering the link)" },
  { "link: {gen: 1, lanes: 12}\n", 128, 250,
    "hard IP for Gen1 x12, by pcie-protocol.md §7's rule (narrowest covering the link)" },
  { "link: {gen: 3, lanes: 16}\n", 512, 250,
    "hard IP for Gen3 x16, by pcie-protocol.md §7's rule (narrowest covering the link)" },
  { "link: {gen: 5, lanes: 16}\n", 1024, 500,
    "hard IP for Gen5 x16, by pcie-protocol.md §7's rule (narrowest covering the link)" },
  { "link: {gen: 6, lanes: 16}\n", 1024, 500, "hard IP for Gen6 x16, by pcie-protocol.md §7's rule (narrowest "
    "covering the link); limits this link: more than 1024 bits at 500 MHz would be needed" },
  /* Gen2 x8 "128 b @ 250, or 256 b @ 125": 256 bits given -> 125 MHz; 125 MHz given -> 256 bits. */
  { "link: {gen: 2, lanes: 8}\nendpoint: {datapath_bits: 256}\n", 256, 125, NULL },
  { "link: {gen: 2, lanes: 8}\nendpoint: {clock_mhz: 125}\n", 256, 125, NULL },
  /* A width the cell does not list keeps the first option's clock. */
  { "link: {gen: 3, lanes: 8}\nendpoint: {datapath_bits: 64}\n", 64, 250, NULL },
  /* Both given: both kept, whatever the link. */
  { "link: {gen: 4, lanes: 16}\nendpoint: {datapath_bits: 64, clock_mhz: 125}\n", 64, 125, NULL },
};

START_TEST (test_datapath_defaults)
{
  const DatapathCase *c = &datapath_cases[_i];
  g_autofree char *dir = case_dir ("datapath");
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, c->link, NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  ck_assert_msg (cfg->endpoint.datapath_bits == c->bits && cfg->endpoint.clock_mhz == c->mhz,
                 "%s: %" G_GINT64_FORMAT " bits @ %g MHz, want %" G_GINT64_FORMAT " @ %g", c->link,
                 cfg->endpoint.datapath_bits, cfg->endpoint.clock_mhz, c->bits, c->mhz);
  const PsKeyOrigin *ob = ps_config_origin (cfg, "endpoint.datapath_bits");
  const PsKeyOrigin *oc = ps_config_origin (cfg, "endpoint.clock_mhz");
  /* A defaulted half says what it follows; a given one says where it was given. */
  if (c->rule) {
    ck_assert_int_eq (ob->from, PS_FROM_DEFAULT);
    ck_assert_str_eq (ob->rule, c->rule);
    ck_assert_str_eq (oc->rule, c->rule);
  } else {
    ck_assert (ob->from == PS_FROM_FILE || oc->from == PS_FROM_FILE);
    ck_assert ((ob->from == PS_FROM_FILE) == (ob->rule == NULL));
  }
}
END_TEST

/* Issue #39 point 13: switch.dll_latency_ns's default, an assumption, follows the latency the user gave: all of
 * it below the assumed 50 ns (a sweep of switch.latency_ns from 0 must not stop at its low end), 50 ns above. */
START_TEST (test_switch_dll_default)
{
  static const double latency[] = { 0, 30, 49, 50, 150 };
  g_autofree char *path = g_build_filename (source_root (), "configs", "v7_p2p_g2_x4_1switch.yaml", NULL);
  for (size_t i = 0; i < G_N_ELEMENTS (latency); i++) {
    g_autofree char *set = g_strdup_printf ("switch.latency_ns=%g", latency[i]);
    g_autoptr (GError) e = NULL;
    g_autoptr (PsConfig) cfg = ps_config_load (path, (const char *const[]) { set, NULL }, &e);
    ck_assert_msg (cfg != NULL, "latency %g: %s", latency[i], e ? e->message : "");
    double want = MIN (latency[i], 50);
    ck_assert_msg (cfg->sw.dll_latency_ns == want, "latency %g: dll %g, want %g", latency[i], cfg->sw.dll_latency_ns,
                   want);
    const PsKeyOrigin *o = ps_config_origin (cfg, "switch.dll_latency_ns");
    ck_assert_int_eq (o->from, PS_FROM_DEFAULT);
    ck_assert ((o->rule != NULL) == (latency[i] < 50));
  }
}
END_TEST

/* Origins (issue #12 item 11): c.yaml includes base.yaml; each key says which of the two, or which --set, gave
 * it, at the value's own line and column, and the rest are defaults. Positions by hand: in base.yaml
 * "link:\n  gen: 2\n  lanes: 8\n" the 8 is at 3:10; in c.yaml "include: base.yaml\nendpoint:\n  tags: 16\n" the
 * 16 is at 3:9. */
START_TEST (test_origins)
{
  g_autofree char *dir = case_dir ("origins");
  g_autofree char *base = write_bytes (dir, "base.yaml", "link:\n  gen: 2\n  lanes: 8\n", -1);
  const char *const sets[] = { "link.max_payload=256", "name=x", NULL };
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = load_text (dir, "include: base.yaml\nendpoint:\n  tags: 16\n", sets, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  g_autofree char *lanes_at = g_strdup_printf ("%s:3:10", base);
  const PsKeyOrigin *o = ps_config_origin (cfg, "link.lanes");
  ck_assert_int_eq (o->from, PS_FROM_INCLUDE);
  ck_assert_str_eq (o->at, lanes_at);
  g_autofree char *tags_at = g_strdup_printf ("%s/c.yaml:3:9", dir);
  o = ps_config_origin (cfg, "endpoint.tags");
  ck_assert_int_eq (o->from, PS_FROM_FILE);
  ck_assert_str_eq (o->at, tags_at);
  o = ps_config_origin (cfg, "link.max_payload");
  ck_assert_int_eq (o->from, PS_FROM_SET);
  ck_assert_str_eq (o->at, "--set link.max_payload=256");
  o = ps_config_origin (cfg, "host.read_latency_ns");
  ck_assert_int_eq (o->from, PS_FROM_DEFAULT);
  ck_assert_ptr_null (o->at);
  ck_assert_int_eq (ps_config_origin (cfg, "published.dma_read_mbps")->from, PS_FROM_ABSENT);
  ck_assert_ptr_null (ps_config_origin (cfg, "link.nothing"));
  /* name is an output key: of the two --sets only link.max_payload changes what is simulated (item 3). */
  ck_assert_str_eq (ps_config_set_changes (cfg), "link.max_payload");
  g_autoptr (PsConfig) plain = load_text (dir, "include: base.yaml\n", (const char *const[]) { "name=y", NULL }, &e);
  ck_assert_ptr_null (ps_config_set_changes (plain));
}
END_TEST

/* Every shipped config loads: they exercise includes and the published block on real files. */
START_TEST (test_shipped_configs)
{
  const char *root = g_getenv ("PCIESIM_SOURCE_ROOT");
  ck_assert_msg (root != NULL, "PCIESIM_SOURCE_ROOT is not set");
  g_autofree char *configs = g_build_filename (root, "configs", NULL);
  g_autoptr (GDir) d = g_dir_open (configs, 0, NULL);
  ck_assert_ptr_nonnull (d);
  guint n = 0;
  for (const char *name; (name = g_dir_read_name (d));) {
    if (!g_str_has_suffix (name, ".yaml"))
      continue;
    g_autofree char *path = g_build_filename (configs, name, NULL);
    g_autoptr (GError) e = NULL;
    g_autoptr (PsConfig) cfg = ps_config_load (path, NULL, &e);
    ck_assert_msg (cfg != NULL, "%s: %s", name, e ? e->message : "");
    /* Every AN-456 row carries its table's four figures (published-calibration.md §1, Tables 7-13); of the other
     * systems, the two §2 gives figures for carry them (the Avalon-MM DMA's Signal Tap figures, XDMA's hardware
     * figure); the rest are predictions and must not. */
    static const char *const an456[] = { "a10gx_", "svgx_", "cvgt_", "avgt_", "sivgx_", "aiigx_", "civgx_" };
    gboolean row = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (an456); i++)
      row |= g_str_has_prefix (name, an456[i]);
    gboolean published = row || !strcmp (name, "avmm256_g3_x8.yaml") || !strcmp (name, "xdma_g3_x8.yaml");
    ck_assert_msg (cfg->published.present == published, "%s: published block %s", name,
                   published ? "missing" : "on a device whose figures are held back");
    ck_assert_msg (!row || (!isnan (cfg->published.dma_read_mbps) && !isnan (cfg->published.dma_write_mbps)
                            && !isnan (cfg->published.simultaneous_read_mbps)
                            && !isnan (cfg->published.simultaneous_write_mbps)),
                   "%s: an AN-456 row without its four figures", name);
    n++;
  }
  ck_assert_uint_gt (n, 0);

  g_autofree char *one = g_build_filename (configs, "svgx_g2_x8.yaml", NULL);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (one, NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  ck_assert_str_eq (cfg->name, "svgx_g2_x8");
  ck_assert_int_eq (cfg->link.gen, 2);
  ck_assert_int_eq (cfg->link.lanes, 8);
  ck_assert_int_eq (cfg->link.max_payload, 256); /* from benchmarks/an456.yaml */
  ck_assert_int_eq (cfg->endpoint.datapath_bits, 128);
}
END_TEST

/* Validate and sweeps load configs on worker threads. GLib creates its C locale on the first number parse of a
 * process, and a thread that waits for another to finish creating it comes back with errno set, which
 * g_ascii_string_to_signed() then reports as a malformed number: "128" was refused and the run aborted, about
 * one process in fifty of `validate --jobs 8`. Each child process here starts 8 first loads at once. */
#define RACE_THREADS 8
#define RACE_PROCESSES 256

static pthread_barrier_t race_gate;

static void *
race_load (void *path)
{
  pthread_barrier_wait (&race_gate);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (path, NULL, &e);
  return cfg ? NULL : path;
}

START_TEST (test_parallel_first_loads)
{
  g_autofree char *dir = case_dir ("race");
  g_autofree char *path = write_bytes (dir, "c.yaml", "name: race\nlink: {gen: 2, lanes: 8}\n", -1);
  /* Under valgrind (which sets CK_TIMEOUT_MULTIPLIER=20, meson.build) threads run one at a time, so the race
   * cannot show there; a token number of processes keeps the suite's memcheck run short. */
  const char *slow = g_getenv ("CK_TIMEOUT_MULTIPLIER");
  int processes = slow && atoi (slow) > 1 ? RACE_PROCESSES / atoi (slow) : RACE_PROCESSES;
  guint failed = 0;
  for (int k = 0; k < processes; k++) {
    pid_t pid = fork ();
    ck_assert_int_ge (pid, 0);
    if (pid == 0) {
      pthread_barrier_init (&race_gate, NULL, RACE_THREADS);
      pthread_t t[RACE_THREADS];
      for (int i = 0; i < RACE_THREADS; i++)
        pthread_create (&t[i], NULL, race_load, path);
      int bad = 0;
      for (int i = 0; i < RACE_THREADS; i++) {
        void *r;
        pthread_join (t[i], &r);
        bad |= r != NULL;
      }
      _exit (bad);
    }
    int status;
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    failed += !WIFEXITED (status) || WEXITSTATUS (status) != 0;
  }
  ck_assert_msg (failed == 0, "%u of %d processes refused a valid config loaded on %d threads at once", failed,
                 processes, RACE_THREADS);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("config");
  TCase *tc = tcase_create ("config");
  /* Generous for sanitizer builds, yet far below the minutes the quadratic inputs of test_pathological_fast
   * took before loading was made linear. */
  tcase_set_timeout (tc, 30);
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_loop_test (tc, test_bad_config, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_missing_config);
  tcase_add_test (tc, test_too_large);
  tcase_add_test (tc, test_pathological_fast);
  tcase_add_test (tc, test_include_override);
  tcase_add_test (tc, test_include_list_order);
  tcase_add_test (tc, test_include_nested_chain);
  tcase_add_test (tc, test_include_relative_paths);
  tcase_add_test (tc, test_set_overrides);
  tcase_add_loop_test (tc, test_set_bad, 0, G_N_ELEMENTS (bad_sets));
  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_switch_dll_default);
  tcase_add_loop_test (tc, test_datapath_defaults, 0, G_N_ELEMENTS (datapath_cases));
  tcase_add_test (tc, test_origins);
  tcase_add_test (tc, test_credit_minimum_accepted);
  tcase_add_test (tc, test_shipped_configs);
  tcase_add_test (tc, test_parallel_first_loads);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
