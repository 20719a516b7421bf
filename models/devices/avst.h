/* avst.h — cycles a TLP occupies on an Avalon-ST-style application interface (the endpoint hard IP's
 * streaming port between the transaction layer and the user's logic).
 *
 * Contract:
 * - Pure function of the interface width, the header length, address bit 2 and the payload length.
 * - Every TLP starts on a fresh cycle (start of packet in the lowest DW): AN-456's chaining DMA never packs two
 *   TLPs into one beat, and the Stratix IV/V TX interfaces only accept start of packet there.
 * - 64- and 128-bit interfaces (Altera "PCI Express Compiler User Guide" / "Stratix V Avalon-ST Interface for PCIe
 *   Solutions", tables "64-bit / 128-bit Avalon-ST tx_st_data cycle definition for 3-DW / 4-DW header TLP with
 *   qword-aligned / non-qword-aligned address"): data keeps its qword alignment from the address. With a 3-DW
 *   header and a non-qword-aligned address the first data DW takes the 4th DW slot (sharing the header's last beat);
 *   with a qword-aligned address that slot stays empty. After a 4-DW header a non-qword-aligned payload starts
 *   in the odd DW, leaving one empty slot. So data begins at DW slot 3 or 4 (3-DW header) or 4 or 5 (4-DW), and
 *   the TLP takes ceil((start + payload DWs) / DWs per beat) beats:
 *     64-bit, 3-DW, aligned, 256 B: ceil((4 + 64) / 2) = 34;  128-bit, 3-DW, unaligned, 4 B: ceil(4 / 4) = 1.
 * - 256-bit interface (Intel Avalon-MM DMA for Gen3 x8, pcie-protocol.md §7): the header has a beat of its own and
 *   data follows in whole beats: a 256-byte TLP takes 1 + 8 beats. Selected by header_own_beat.
 * - The same rule is used for received completions (the RX interface mirrors the TX alignment rules; a CplD's
 *   "address" is its lower address field).
 */
#pragma once

#include <glib.h>
#include <stdint.h>

uint32_t avst_beats (uint32_t width_bits, gboolean header_own_beat, uint32_t header_bytes, uint64_t address,
  uint32_t payload_bytes);
/* Beats before the first one carrying data (header only), by the same rule; a TLP without data is all header.
 * avst_beats() minus this is the beats that carry data: what a logic analyser on the interface counts as data
 * cycles (published-calibration.md §2.1). */
uint32_t avst_header_beats (uint32_t width_bits, gboolean header_own_beat, uint32_t header_bytes, uint64_t address,
  uint32_t payload_bytes);
