/* tags.c — the tag-reuse check of a many-requester completer (contract in tags.h). */
#include "models/txn/tags.h"

#include "sim/engine.h"

void
txn_tags_init (TxnTagSet *s, const char *name, uint32_t n_buses, uint32_t n_functions)
{
  s->name = name;
  s->n_buses = n_buses;
  s->n_functions = n_functions;
  s->busy = g_malloc0_n ((gsize) n_buses * n_functions, sizeof *s->busy);
}

void
txn_tags_init_fabric (TxnTagSet *s, const char *name, const Fabric *f)
{
  uint32_t buses = 1, functions = 1;
  for (guint i = 0; i < fabric_n_components (f); i++) {
    const Component *c = fabric_component (f, i);
    buses = MAX (buses, (uint32_t) (c->id >> 8) + 1);
    functions = MAX (functions, c->n_functions);
  }
  txn_tags_init (s, name, buses, functions);
}

void
txn_tags_clear (TxnTagSet *s)
{
  g_clear_pointer (&s->busy, g_free);
}

static uint32_t
row (const TxnTagSet *s, uint16_t requester)
{
  return (uint32_t) (requester >> 8) * s->n_functions + (requester & 7u);
}

uint32_t
txn_tags_claim (TxnTagSet *s, uint16_t requester, uint16_t tag)
{
  SIM_INVARIANT ((uint32_t) (requester >> 8) < s->n_buses && (requester & 7u) < s->n_functions && tag < TXN_TAGS,
                 "%s: a read from requester %04x tag %u, which no enumerated function below a root port holds",
                 s->name, requester, tag);
  uint64_t *w = &s->busy[row (s, requester)][tag / 64];
  SIM_INVARIANT (!(*w >> (tag % 64) & 1), "%s: requester %04x reuses tag %u while a read with it is outstanding",
                 s->name, requester, tag);
  *w |= UINT64_C (1) << (tag % 64);
  return ++s->users[tag];
}

void
txn_tags_release (TxnTagSet *s, uint16_t requester, uint16_t tag)
{
  s->busy[row (s, requester)][tag / 64] &= ~(UINT64_C (1) << (tag % 64));
  s->users[tag]--;
}
