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
gboolean fc_tx_can (const FcTx *tx, FcClass cls, uint32_t hdr, uint32_t data);
void fc_tx_consume (FcTx *tx, FcClass cls, uint32_t hdr, uint32_t data);
/* An UpdateFC arrived with these absolute limits. Limits only grow; a stale (smaller) value is ignored. */
void fc_tx_update (FcTx *tx, FcClass cls, uint64_t hdr_limit, uint64_t data_limit);
/* Credits still available (UINT64_MAX when infinite). */
uint64_t fc_tx_available (const FcTx *tx, FcClass cls, FcPart part);

void fc_rx_init (FcRx *rx, const FcAmounts *credits, const FcPolicy *policy);
void fc_rx_receive (FcRx *rx, FcClass cls, uint32_t hdr, uint32_t data);
/* Consumer released a TLP's credits. Returns TRUE when the policy asks for an UpdateFC of this class now. */
gboolean fc_rx_free (FcRx *rx, FcClass cls, uint32_t hdr, uint32_t data);
/* Limits the receiver can grant now (advertised + freed); what an UpdateFC placed now carries. */
void fc_rx_current_limit (const FcRx *rx, FcClass cls, uint64_t *hdr_limit, uint64_t *data_limit);
void fc_rx_mark_sent (FcRx *rx, FcClass cls);
/* TRUE when the class has a finite type (and so needs periodic UpdateFCs). */
gboolean fc_rx_class_finite (const FcRx *rx, FcClass cls);
/* Credits occupying the receive buffer now. */
uint64_t fc_rx_occupied (const FcRx *rx, FcClass cls, FcPart part);
