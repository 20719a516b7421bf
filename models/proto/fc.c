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

/* Absolute counters: "consumed + n <= limit" is the spec's modular test without the modulus. */
static gboolean
tx_part_ok (const FcTx *tx, FcClass cls, FcPart p, uint32_t n)
{
  return tx->infinite[cls][p] || tx->consumed[cls][p] + n <= tx->limit[cls][p];
}

/* A TLP goes only when both its header and its data credits are there (spec §2.6.1): headers and data sit in
 * separate receive buffers, and either could overflow. Data-less kinds pass data 0, which always fits. */
gboolean
fc_tx_can (const FcTx *tx, FcClass cls, uint32_t hdr, uint32_t data)
{
  return tx_part_ok (tx, cls, FC_HDR, hdr) && tx_part_ok (tx, cls, FC_DATA, data);
}

void
fc_tx_consume (FcTx *tx, FcClass cls, uint32_t hdr, uint32_t data)
{
  SIM_INVARIANT (fc_tx_can (tx, cls, hdr, data),
                "credits: transmitter consumed class %d %u hdr + %u data beyond its limits %" G_GUINT64_FORMAT
                "/%" G_GUINT64_FORMAT " (consumed %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ")",
                cls, hdr, data, tx->limit[cls][FC_HDR], tx->limit[cls][FC_DATA], tx->consumed[cls][FC_HDR],
                tx->consumed[cls][FC_DATA]);
  tx->consumed[cls][FC_HDR] += hdr;
  tx->consumed[cls][FC_DATA] += data;
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

/* Overflow is an internal error: it can only mean a transmitter ignored credits, a model bug that must not be
 * averaged away. */
void
fc_rx_receive (FcRx *rx, FcClass cls, uint32_t hdr, uint32_t data)
{
  rx->received[cls][FC_HDR] += hdr;
  rx->received[cls][FC_DATA] += data;
  for (int p = 0; p < 2; p++)
    SIM_INVARIANT (rx->infinite[cls][p] || rx->received[cls][p] - rx->freed[cls][p] <= rx->advertised[cls][p],
                  "credits: receive buffer overflow, class %d part %d holds %" G_GUINT64_FORMAT " > %u advertised",
                  cls, p, rx->received[cls][p] - rx->freed[cls][p], rx->advertised[cls][p]);
}

/* Two triggers, either one enough. The spec's (§2.6.1.2): if the limit last sent leaves the transmitter too few
 * credits for another TLP, it is stuck until told, so freeing any owes an UpdateFC now. The optional threshold
 * counts credits freed but not yet announced, to return them before the transmitter runs dry. */
gboolean
fc_rx_free (FcRx *rx, FcClass cls, uint32_t hdr, uint32_t data)
{
  uint32_t n[2] = { hdr, data };
  gboolean want = FALSE;
  for (int p = 0; p < 2; p++) {
    /* Infinite types are never announced (pcie-protocol.md §5); a part this TLP did not use frees nothing. */
    if (rx->infinite[cls][p] || n[p] == 0)
      continue;
    SIM_INVARIANT (rx->freed[cls][p] + n[p] <= rx->received[cls][p],
                  "credits: class %d part %d freeing %u with %" G_GUINT64_FORMAT " freed of %" G_GUINT64_FORMAT
                  " received (more returned than taken)", cls, p, n[p], rx->freed[cls][p], rx->received[cls][p]);
    /* Spec §2.6.1.2: what the transmitter may still send, as far as this receiver knows (it may have sent
     * less than we think only if TLPs are still on the wire, which only delays the rule by one flight). */
    uint64_t left = rx->limit_sent[cls][p] - MIN (rx->limit_sent[cls][p], rx->received[cls][p]);
    /* Headers: none left. Data: fewer than one max-payload TLP needs (a smaller TLP might still fit, a full-size
     * one would wait); without an MPS the data rule falls back to the header one. */
    uint64_t exhausted_below = p == FC_HDR ? 1 : MAX (rx->policy.mps_data_credits, 1u);
    if (left < exhausted_below)
      want = TRUE;
    rx->freed[cls][p] += n[p];
    uint32_t threshold = p == FC_HDR ? rx->policy.hdr_threshold_credits : rx->policy.data_threshold_credits;
    uint64_t granted_unsent = rx->advertised[cls][p] + rx->freed[cls][p] - rx->limit_sent[cls][p];
    if (threshold && granted_unsent >= threshold)
      want = TRUE;
  }
  return want;
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

/* One finite type is enough: an UpdateFC carries the header and the data limit of its class together. */
gboolean
fc_rx_class_finite (const FcRx *rx, FcClass cls)
{
  return !rx->infinite[cls][FC_HDR] || !rx->infinite[cls][FC_DATA];
}

uint64_t
fc_rx_occupied (const FcRx *rx, FcClass cls, FcPart part)
{
  return rx->received[cls][part] - rx->freed[cls][part];
}
