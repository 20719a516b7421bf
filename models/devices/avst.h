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

/* Inline (avst.c was their file): the datapath counts every TLP's beats two or three times as it sends or
 * receives it. */

/* First DW slot of the data, counted from the start of packet: after the header's own beats, or where the
 * address puts it (above). */
static inline uint32_t
avst_data_start_slot (uint32_t per_beat, gboolean header_own_beat, uint32_t hdr_dw, uint64_t address)
{
  if (header_own_beat)
    return ((hdr_dw + per_beat - 1) / per_beat) * per_beat;
  /* Address bit 2 says whether the first data DW is the upper half of a qword; data keeps that position. */
  gboolean odd = (address & 4) != 0;
  return hdr_dw == 3 ? (odd ? 3 : 4) : (odd ? 5 : 4);
}

/* Counted in DW slots from the start of packet, header first, width/32 slots a beat; payload rounds up to whole
 * DWs as a TLP's Length field does. Without data (MRd, Cpl) the TLP ends with its header: no alignment slot. */
static inline uint32_t
avst_beats (uint32_t width_bits, gboolean header_own_beat, uint32_t header_bytes, uint64_t address,
  uint32_t payload_bytes)
{
  uint32_t per_beat = width_bits / 32; /* DWs per beat */
  uint32_t hdr_dw = header_bytes / 4;
  uint32_t data_dw = (payload_bytes + 3) / 4;
  if (data_dw == 0)
    return (hdr_dw + per_beat - 1) / per_beat;
  return (avst_data_start_slot (per_beat, header_own_beat, hdr_dw, address) + data_dw + per_beat - 1) / per_beat;
}

/* Beats before the first one carrying data (header only), by the same rule; a TLP without data is all header.
 * avst_beats() minus this is the beats that carry data: what a logic analyser on the interface counts as data
 * cycles (published-calibration.md §2.1). */
static inline uint32_t
avst_header_beats (uint32_t width_bits, gboolean header_own_beat, uint32_t header_bytes, uint64_t address,
  uint32_t payload_bytes)
{
  uint32_t per_beat = width_bits / 32;
  if (payload_bytes == 0)
    return avst_beats (width_bits, header_own_beat, header_bytes, address, 0);
  /* A beat whose slots hold the header's end and the first data DW carries data. */
  return avst_data_start_slot (per_beat, header_own_beat, header_bytes / 4, address) / per_beat;
}
