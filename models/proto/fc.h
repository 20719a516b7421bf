/* fc.h — flow-control credit accounting for one receiver and the transmitter that sends to it (spec §2.6.1).
 *
 * Contract:
 * - Counters are absolute 64-bit totals (credits received/freed/consumed since link-up), so the 8/12-bit modular
 *   fields of real DLLPs need no wrap handling here; the DLLP carries the absolute limit.
 * - An advertisement of 0 for a type means infinite (pcie-protocol.md §5): such a type never blocks and never
 *   needs an UpdateFC.
 * - FcTx: the transmitter's view. It may send when consumed + cost <= limit, the limit being the last value an
 *   InitFC/UpdateFC delivered. FcRx: the receiver's buffer. received - freed never exceeds the advertisement
 *   (asserted: a violation means a transmitter ignored credits).
 * - UpdateFC policy (explicit, parameterised in FcPolicy): the spec rule of §2.6.1.2 by default — send when a
 *   type's credits, as last advertised, were exhausted (headers: none left; data: fewer than one max-payload
 *   TLP needs) and some are freed — plus, optionally, when freed credits since the last UpdateFC reach a
 *   threshold, which is what eager real receivers do.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sim/engine.h"

/* Flow-control classes (spec §2.6.1): each has a header and a data credit type. tlp_fc_class() says which a TLP
 * kind uses. */
typedef enum { FC_P, FC_NP, FC_CPL, FC_CLASS_COUNT } FcClass;

typedef enum { FC_HDR = 0, FC_DATA = 1 } FcPart;

/* Credits one receiver advertises (spec §2.6.1, §3.4.2), named as the config names them. 0 means infinite, as the
 * InitFC encoding does. */
typedef struct {
  uint32_t ph, pd, nph, npd, cplh, cpld;
} FcCredits;

typedef struct {
  gboolean infinite[FC_CLASS_COUNT][2];
  uint64_t limit[FC_CLASS_COUNT][2]; /* credit limit from the last InitFC/UpdateFC */
  uint64_t consumed[FC_CLASS_COUNT][2];
} FcTx;

typedef struct {
  uint32_t mps_data_credits; /* data credits one max-payload TLP needs: the spec's "exhausted" line for PD/CplD */
  uint32_t hdr_threshold_credits; /* also update when this many header credits were freed since; 0 = off */
  uint32_t data_threshold_credits; /* the same for data credits; 0 = off */
} FcPolicy;

typedef struct {
  FcPolicy policy;
  gboolean infinite[FC_CLASS_COUNT][2];
  uint32_t advertised[FC_CLASS_COUNT][2]; /* buffer size in credits (InitFC) */
  uint64_t received[FC_CLASS_COUNT][2]; /* credits taken by arriving TLPs */
  uint64_t freed[FC_CLASS_COUNT][2]; /* credits released by consumers */
  uint64_t limit_sent[FC_CLASS_COUNT][2]; /* limit carried by the last UpdateFC placed on the wire */
} FcRx;

/* Class-major view of an FcCredits: [class][part], so one loop covers the six types (0 = infinite). */
typedef struct {
  uint32_t n[FC_CLASS_COUNT][2];
} FcAmounts;

void fc_tx_init (FcTx *tx, const FcAmounts *credits);
/* An UpdateFC arrived with these absolute limits. Limits only grow; a stale (smaller) value is ignored. */
void fc_tx_update (FcTx *tx, FcClass cls, uint64_t hdr_limit, uint64_t data_limit);
/* Credits still available (UINT64_MAX when infinite). */
uint64_t fc_tx_available (const FcTx *tx, FcClass cls, FcPart part);

void fc_rx_init (FcRx *rx, const FcAmounts *credits, const FcPolicy *policy);
/* Limits the receiver can grant now (advertised + freed); what an UpdateFC placed now carries. */
void fc_rx_current_limit (const FcRx *rx, FcClass cls, uint64_t *hdr_limit, uint64_t *data_limit);
void fc_rx_mark_sent (FcRx *rx, FcClass cls);
/* Credits occupying the receive buffer now. */
uint64_t fc_rx_occupied (const FcRx *rx, FcClass cls, FcPart part);

/* ---- per TLP ----
 * Inline: the link tests, takes and returns a TLP's credits several times per TLP, and each of these was a call
 * for a few comparisons. */

/* Absolute counters: "consumed + n <= limit" is the spec's modular test without the modulus. */
static inline gboolean
fc_tx_part_ok (const FcTx *tx, FcClass cls, FcPart p, uint32_t n)
{
  return tx->infinite[cls][p] || tx->consumed[cls][p] + n <= tx->limit[cls][p];
}

/* A TLP goes only when both its header and its data credits are there (spec §2.6.1): headers and data sit in
 * separate receive buffers, and either could overflow. Data-less kinds pass data 0, which always fits. */
static inline gboolean
fc_tx_can (const FcTx *tx, FcClass cls, uint32_t hdr, uint32_t data)
{
  return fc_tx_part_ok (tx, cls, FC_HDR, hdr) && fc_tx_part_ok (tx, cls, FC_DATA, data);
}

static inline void
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

/* Overflow is an internal error: it can only mean a transmitter ignored credits, a model bug that must not be
 * averaged away. */
static inline void
fc_rx_receive (FcRx *rx, FcClass cls, uint32_t hdr, uint32_t data)
{
  rx->received[cls][FC_HDR] += hdr;
  rx->received[cls][FC_DATA] += data;
  for (int p = 0; p < 2; p++)
    SIM_INVARIANT (rx->infinite[cls][p] || rx->received[cls][p] - rx->freed[cls][p] <= rx->advertised[cls][p],
                  "credits: receive buffer overflow, class %d part %d holds %" G_GUINT64_FORMAT " > %u advertised",
                  cls, p, rx->received[cls][p] - rx->freed[cls][p], rx->advertised[cls][p]);
}

/* Consumer released a TLP's credits. Returns TRUE when the policy asks for an UpdateFC of this class now.
 * Two triggers, either one enough. The spec's (§2.6.1.2): if the limit last sent leaves the transmitter too few
 * credits for another TLP, it is stuck until told, so freeing any owes an UpdateFC now. The optional threshold
 * counts credits freed but not yet announced, to return them before the transmitter runs dry. */
static inline gboolean
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

/* TRUE when the class has a finite type (and so needs periodic UpdateFCs). One finite type is enough: an UpdateFC
 * carries the header and the data limit of its class together. */
static inline gboolean
fc_rx_class_finite (const FcRx *rx, FcClass cls)
{
  return !rx->infinite[cls][FC_HDR] || !rx->infinite[cls][FC_DATA];
}
