/* avst.c — Avalon-ST beat counts; the alignment rules and their sources are in avst.h. */
#include "models/devices/avst.h"

/* First DW slot of the data, counted from the start of packet: after the header's own beats, or where the
 * address puts it (avst.h). */
static uint32_t
data_start_slot (uint32_t per_beat, gboolean header_own_beat, uint32_t hdr_dw, uint64_t address)
{
  if (header_own_beat)
    return ((hdr_dw + per_beat - 1) / per_beat) * per_beat;
  /* Address bit 2 says whether the first data DW is the upper half of a qword; data keeps that position. */
  gboolean odd = (address & 4) != 0;
  return hdr_dw == 3 ? (odd ? 3 : 4) : (odd ? 5 : 4);
}

/* Counted in DW slots from the start of packet, header first, width/32 slots a beat; payload rounds up to whole
 * DWs as a TLP's Length field does. Without data (MRd, Cpl) the TLP ends with its header: no alignment slot. */
uint32_t
avst_beats (uint32_t width_bits, gboolean header_own_beat, uint32_t header_bytes, uint64_t address,
  uint32_t payload_bytes)
{
  uint32_t per_beat = width_bits / 32; /* DWs per beat */
  uint32_t hdr_dw = header_bytes / 4;
  uint32_t data_dw = (payload_bytes + 3) / 4;
  if (data_dw == 0)
    return (hdr_dw + per_beat - 1) / per_beat;
  return (data_start_slot (per_beat, header_own_beat, hdr_dw, address) + data_dw + per_beat - 1) / per_beat;
}

uint32_t
avst_header_beats (uint32_t width_bits, gboolean header_own_beat, uint32_t header_bytes, uint64_t address,
  uint32_t payload_bytes)
{
  uint32_t per_beat = width_bits / 32;
  if (payload_bytes == 0)
    return avst_beats (width_bits, header_own_beat, header_bytes, address, 0);
  /* A beat whose slots hold the header's end and the first data DW carries data. */
  return data_start_slot (per_beat, header_own_beat, header_bytes / 4, address) / per_beat;
}
