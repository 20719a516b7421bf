/* machine.h — `pciesim machine DUMP [--tree TREE]`: every PCIe function of a whole machine's `lspci -vvv` at a
 * glance, the answer to "is what my system gets right?" (issue #40): its link as trained against what both ends
 * can run, its payload, read request, relaxed ordering and tag settings against what it supports, and the
 * protocol's ceiling for DMA reads and writes at those settings beside the ceiling at the capable ones.
 *
 * Contract:
 * - One row per function of the dump, in the dump's order: address, name, kind (lspci_kind()), and for a function
 *   with an Express link: the link as trained (LnkSta) and as capable — the lower of its own LnkCap and, where the
 *   dump shows it, the other end's (the port above an endpoint or upstream port: the bridge whose Bus: line, or
 *   with --tree the `lspci -tv` drawing, puts it there; the function 0 below a port). "Downgraded" is a link
 *   trained below what both ends can run (or lspci's own "(downgraded)" marker), with the likely cause in words;
 *   a link with LnkSta width x0 is "down". MaxPayload against the largest both the function and every port above
 *   it support (DevCap), MaxReadReq against the spec's 4096, ExtTag/10-bit tags against DevCap/DevCap2.
 * - Ceilings: link_protocol_limit_mbps() of the config `pciesim import lspci` would write with hosts/ideal.yaml
 *   (the same gen, lanes, MaxPayload and address width), so a row's figure is the protocol limit `pciesim` prints
 *   for that import: reads carried in 3-DW CplDs, writes in MWrs with the config's header. Where a link between the
 *   function and the root complex (a switch's upstream link, a root port's) carries less at the function's
 *   payload, the ceiling is that link's and `limited_by` names it. The capable ceiling is the same at the capable
 *   link and payload.
 * - Below the rows, the endpoints that lose most to their settings or links (capable read ceiling less the
 *   trained one), largest first, each with the change that recovers it.
 * - Formats: table, csv, markdown (one row per function, the same columns) and json (`devices: [...]`, `losses:
 *   [...]`; docs/your-machine.md). Errors: as `import lspci`'s reading of the dump (located PS_ERROR_DATA); a
 *   function whose capabilities read "<access denied>" is a row that says so, not an error.
 */
#pragma once

#include <glib.h>

#include "app/base/format.h"

typedef struct {
  const char *dump_path; /* lspci -vvv of the whole machine */
  const char *tree_path; /* lspci -tv, or NULL */
  PsFormat format;
  const char *output; /* NULL or "-" = stdout */
} PsMachine;

gboolean ps_machine_run (const PsMachine *m, GError **error);

/* The text-to-text part (the tests call it): `host_path` is the host file the ceilings' configs include
 * (hosts/ideal.yaml). Returns the report or NULL with `error` set. */
char *ps_machine_report (const char *dump_name, const char *dump, gsize dump_len, const char *tree_name,
                         const char *tree, gsize tree_len, const char *host_path, PsFormat format, GError **error);
