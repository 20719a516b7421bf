/* lspci.h — `pciesim import lspci`: a config from the text of `lspci -vvv` (and of `lspci -tv` for the tree of
 * switches above the device), so a user starts from the machine they have instead of copying registers by hand.
 *
 * Contract:
 * - Input: the dump of `lspci -vvv` (one or several devices; with or without -D domains; any pciutils from 3.2 on:
 *   fields wrapped onto continuation lines or not, tabs or spaces, CRLF line ends). A device starts at a line
 *   "[DDDD:]BB:DD.F DESCRIPTION"; its fields are read from the labelled lines DevCap, DevCtl, LnkCap, LnkCtl,
 *   LnkSta, DevCap2, DevCtl2 and Region N (those before the capabilities: SR-IOV's VF BARs are not the device's),
 *   each with the lines below it that are indented deeper or carry no label.
 * - Output: a config whose every value has a comment naming the dump line it came from (FILE:LINE and the line):
 *   link.gen/link.lanes from LnkSta (the trained link; LnkCap noted when it is more, first thing in the file),
 *   link.max_payload/max_read_request from DevCtl, link.read_completion_boundary from LnkCtl, endpoint.tags from
 *   DevCtl ExtTag (256, else 32) and DevCtl2 10BitTagReq (768), the host file given or hosts/ideal.yaml. With the
 *   tree, a topology: root complex, one switch per upstream/downstream port pair on the path to the device (the
 *   links' widths and speeds from the ports' own LnkSta when the dump has them), the device with its BARs (from
 *   the Region lines), and one write and one read flow; without it, the one-link DMA benchmark (BARs as comments).
 *   A device of several functions (the tree's and the dump's entries with its bus and device number, or any device
 *   number with ARI, which numbers functions device << 3 | function) gets `functions:` N = the highest number + 1
 *   (8 at most, noted), its flows `function:` the imported one's, its BARs function 0's (pciesim gives BARs to
 *   function 0 alone); without the tree a comment. With the tree an ARI function beyond 7 is PS_ERROR_DATA.
 *   An SR-IOV VF (its address among the enabled VFs of a PF's SR-IOV capability in the dump: PF + VF offset + k x
 *   stride, k below Number of VFs) takes its PF's link, MaxPayload, RCB and ExtTag (a VF's are reserved, SR-IOV
 *   1.1 3.5), its own MaxReadReq, each comment saying so. Other functions of the device whose MaxReadReq or tags
 *   differ from the imported one's are named in comments with their lines.
 * - The config is loaded with ps_config_load() before it is written: what is written runs as is, and a config the
 *   checks refuse is an internal error (70), never a file.
 * - Errors: a dump with several devices and no --device (or a --device it lacks) is PS_ERROR_USAGE, listing the
 *   devices; bad input is PS_ERROR_DATA located "FILE:LINE:COL: error: …" at the dump or tree line at fault (a value
 *   lspci never prints, a field without its value, a device listed twice, a tree line that is no tree); a device
 *   whose capabilities lspci could not read ("<access denied>") is PS_ERROR_DATA naming the values missing and
 *   the command that reads them (lspci as root); an endpoint whose LnkSta reads "Speed unknown, Width x0" (a VF)
 *   with no PF in the dump is PS_ERROR_DATA at that line, with the command that dumps the PF too. Missing files
 *   are PS_ERROR_NOINPUT, an unwritable output PS_ERROR_CANTCREAT. Parsing is linear in the input and allocates
 *   per line, never per byte. */
#pragma once

#include <glib.h>

/* Larger inputs are refused: a whole machine's `lspci -vvv` is some 100 KB. */
#define PS_LSPCI_MAX_BYTES (16 * 1024 * 1024)

typedef struct {
  const char *dump_path; /* lspci -vvv text */
  const char *tree_path; /* lspci -tv text, or NULL */
  const char *device; /* [DDDD:]BB:DD.F, or NULL when the dump holds one device */
  const char *host; /* the host file as the user named it, or NULL for hosts/ideal.yaml */
  const char *output; /* NULL or "-" = stdout */
} PsLspciImport;

gboolean ps_lspci_import (const PsLspciImport *imp, GError **error);

/* Whether `path` is a host file (host:, cpu:, link.address_bits, link.updatefc_policy, assumptions:): else a
 * PS_ERROR_DATA at the first key that is not the host's. What --host of the imports accepts. */
gboolean ps_lspci_check_host_file (const char *path, GError **error);

/* The --host file as given (from here, else under the configs; NULL = hosts/ideal.yaml), canonical and checked
 * to be a host file: PS_ERROR_NOINPUT when there is none, as ps_lspci_check_host_file() otherwise. */
char *ps_lspci_host_path (const char *host, GError **error);
/* What a config written to `output` (NULL or "-": stdout) writes in its include: to reach `host_path`: relative to
 * the output's folder when they share a top folder, else absolute. */
char *ps_lspci_include_path (const char *output, const char *host_path);

/* The text-to-text part, with no file access (the tests and the fuzzer call it). `dump` and `tree` need not end in
 * NUL (their lengths are given; tree may be NULL); `host_include` is written as is into the include: list and
 * `host_note` beside it. Warnings the user should see (a link trained below its capability) are appended to
 * `notes` as lines, when it is not NULL. Returns the config text or NULL with `error` set. */
char *ps_lspci_config (const char *dump_name, const char *dump, gsize dump_len, const char *tree_name,
                       const char *tree, gsize tree_len, const char *device, const char *host_include,
                       const char *host_note, GString *notes, GError **error);
