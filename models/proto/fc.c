/* fc.c — credit arithmetic; see fc.h for the policy.
 *
 * Every array is [class][part]: the six credit types of spec §2.6.1 (PH, PD, NPH, NPD, CplH, CplD) as FC_P/NP/CPL
 * × FC_HDR/FC_DATA, so one loop covers them all. Counters are absolute 64-bit totals since link-up: at 16 bytes
 * per data credit they would take over a century to wrap at any PCIe rate, so every test is a plain comparison. */
#include "models/proto/fc.h"

#include "sim/engine.h"


void
fc_tx_init (FcTx *tx, const FcAmounts *credits)
{
  *tx = (FcTx) { 0 };
  for (int c = 0; c < FC_CLASS_COUNT; c++)
    for (int p = 0; p < 2; p++) {
      tx->infinite[c][p] = credits->n[c][p] == 0; /* pcie-protocol.md §5: 0 advertises infinite */
      /* The InitFC value is the first limit: with nothing consumed yet, the transmitter may fill exactly the
       * receiver's buffer before any UpdateFC comes back. */
      tx->limit[c][p] = credits->n[c][p];
    }
}

void
fc_tx_update (FcTx *tx, FcClass cls, uint64_t hdr_limit, uint64_t data_limit)
{
  /* DLLPs on one direction arrive in order, so a smaller limit can only come from an older UpdateFC. */
  tx->limit[cls][FC_HDR] = MAX (tx->limit[cls][FC_HDR], hdr_limit);
  tx->limit[cls][FC_DATA] = MAX (tx->limit[cls][FC_DATA], data_limit);
}

uint64_t
fc_tx_available (const FcTx *tx, FcClass cls, FcPart part)
{
  if (tx->infinite[cls][part])
    return UINT64_MAX;
  SIM_INVARIANT (tx->consumed[cls][part] <= tx->limit[cls][part],
                "credits: class %d part %d below zero (consumed %" G_GUINT64_FORMAT " > limit %" G_GUINT64_FORMAT ")",
                cls, part, tx->consumed[cls][part], tx->limit[cls][part]);
  return tx->limit[cls][part] - tx->consumed[cls][part];
}

void
fc_rx_init (FcRx *rx, const FcAmounts *credits, const FcPolicy *policy)
{
  *rx = (FcRx) { 0 };
  rx->policy = *policy;
  for (int c = 0; c < FC_CLASS_COUNT; c++)
    for (int p = 0; p < 2; p++) {
      rx->infinite[c][p] = credits->n[c][p] == 0;
      rx->advertised[c][p] = credits->n[c][p];
      rx->limit_sent[c][p] = credits->n[c][p]; /* what InitFC told the transmitter */
    }
}

/* A receiver can grant its whole buffer minus what it still holds: advertised + freed, as an absolute limit. */
void
fc_rx_current_limit (const FcRx *rx, FcClass cls, uint64_t *hdr_limit, uint64_t *data_limit)
{
  *hdr_limit = rx->advertised[cls][FC_HDR] + rx->freed[cls][FC_HDR];
  *data_limit = rx->advertised[cls][FC_DATA] + rx->freed[cls][FC_DATA];
}

/* Called when the UpdateFC goes on the wire, not when it lands: what the receiver has promised is what both
 * triggers of fc_rx_free() measure against, so credits freed while it flies count toward the next one. */
void
fc_rx_mark_sent (FcRx *rx, FcClass cls)
{
  fc_rx_current_limit (rx, cls, &rx->limit_sent[cls][FC_HDR], &rx->limit_sent[cls][FC_DATA]);
}

uint64_t
fc_rx_occupied (const FcRx *rx, FcClass cls, FcPart part)
{
  return rx->received[cls][part] - rx->freed[cls][part];
}
