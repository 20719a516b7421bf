/* link_trace.c — a traced link's signals: its credits as they change and each TLP on the wire, with the arrow of a
 * read from its MRd to its last completion. Called by the data link layer (link.c) only when Link.trace is set;
 * apart from link.c so that the statistics (link_stats.c) and the layer they read do not call each other. */
#include "models/link/link_impl.h"

/* Each caller tests Link.trace first. */

G_GNUC_NO_INLINE void
trace_fc (Link *l, Dir *d, FcClass c, SimTime now)
{
  /* The first change: every finite type of both directions starts from its advertisement, so a class without
   * traffic still shows its credits. */
  if (!l->trace_primed) {
    l->trace_primed = TRUE;
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < FC_CLASS_COUNT; k++)
        for (int p = 0; p < 2; p++)
          if (!l->d[i].fc_tx.infinite[k][p] && (i != (int) d->dir || k != (int) c))
            trace_credits (l->trace, &l->d[i].tr, (FcClass) k, (FcPart) p, now,
                           fc_tx_available (&l->d[i].fc_tx, (FcClass) k, (FcPart) p));
  }
  for (int p = 0; p < 2; p++)
    if (!d->fc_tx.infinite[c][p])
      trace_credits (l->trace, &d->tr, c, (FcPart) p, now, fc_tx_available (&d->fc_tx, c, (FcPart) p));
}

static TraceWire
trace_kind (TlpKind k)
{
  static const TraceWire w[TLP_KIND_COUNT] = { [TLP_MWR] = TRACE_WIRE_MWR, [TLP_MRD] = TRACE_WIRE_MRD,
                                               [TLP_CPLD] = TRACE_WIRE_CPLD, [TLP_CPL] = TRACE_WIRE_CPL,
                                               [TLP_MSI] = TRACE_WIRE_MSI };
  return w[k];
}

/* A TLP on the wire: its slice, and the arrow of a read: started at the MRd, stepped at each completion, ended at
 * the one whose byte count is its own payload (the last, spec §2.2.9). A replay sends the TLP again: a slice,
 * no arrow. */
G_GNUC_NO_INLINE void
trace_tlp (Link *l, Dir *d, const Tlp *t, const PhyPlacement *pl, gboolean replayed)
{
  const Phy *phy = &l->phy;
  SimTime start = slot_ps (phy, pl->start_slot);
  gboolean read = t->kind == TLP_MRD || t->kind == TLP_CPLD || t->kind == TLP_CPL;
  trace_wire (l->trace, &d->tr, trace_kind (t->kind), start, slot_ps (phy, pl->end_slot) - start,
              read ? t->tag : 0, t->kind == TLP_MRD ? t->length_bytes : t->payload_bytes);
  if (replayed || !read)
    return;
  gpointer key = GUINT_TO_POINTER ((guint) t->requester << 16 | t->tag);
  if (t->kind == TLP_MRD) {
    g_hash_table_insert (l->flows, key, GSIZE_TO_POINTER (++l->flow_seq));
    trace_read_request (l->trace, &d->tr, l->flow_seq, start);
    return;
  }
  gpointer id = g_hash_table_lookup (l->flows, key);
  if (id == NULL)
    return; /* the request went up another link (a fabric) */
  gboolean last = t->kind == TLP_CPL || t->length_bytes <= t->payload_bytes;
  trace_read_completion (l->trace, &d->tr, GPOINTER_TO_SIZE (id), start, last);
  if (last)
    g_hash_table_remove (l->flows, key);
}
