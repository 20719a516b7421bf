/* hardip.h — the application interface a PCIe hard IP gives its link: the datapath width and clock the vendor
 * sized for each generation and width (pcie-protocol.md §7), and the per-lane rates that sizing covers.
 *
 * Contract:
 * - hardip_datapath_default() is the one table of these defaults: a new width or generation is one line in
 *   hardip.c. Outside the table the choice follows the table's own rule (an ASSUMPTION, explained in hardip.c).
 * - Pure: no state, no errors; the caller checks gen (1..6) and lanes beforehand.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

/* The application interface a hard IP gives a link of this generation and width when the config names none
 * (pcie-protocol.md §7): *bits and *mhz are in/out — a value > 0 on entry was given and is kept, and the other
 * is chosen to go with it. Returns the rule's description ("hard IP for Gen2 x8, pcie-protocol.md §7"), owned by
 * the caller. */
char *hardip_datapath_default (int64_t gen, int64_t lanes, int64_t *bits, double *mhz);
