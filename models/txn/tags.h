/* tags.h — the tag-reuse check of a completer that serves many requesters (the root complex): which (requester,
 * tag) pairs have a read outstanding.
 *
 * Contract:
 * - No requester holds one tag twice (spec §2.2.6.2), which is what lets completions of different requesters share
 *   tag numbers. A bit per (bus, function, tag): every requester is device 0 of its bus (fabric.h), and each
 *   function is a requester of its own. Tags up to 14 bits, the most any link carries (flit mode).
 * - A read from a function the set was not sized for, or a tag claimed twice, is a model bug (SIM_INVARIANT,
 *   exit 70). A completer given a set (TxnCompleter.tags) claims and releases through it; one without checks over
 *   its queue instead (completer.h's check_tags), which is for completers that hold few reads.
 * - Allocates once, in txn_tags_init().
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "models/fabric/fabric.h"

#define TXN_TAGS 16384u
#define TXN_TAG_WORDS (TXN_TAGS / 64)

typedef struct {
  const char *name; /* for invariant messages */
  uint64_t (*busy)[TXN_TAG_WORDS]; /* row bus * n_functions + function */
  uint32_t n_buses, n_functions;
  uint16_t users[TXN_TAGS]; /* requesters holding each tag number */
} TxnTagSet;

/* Rows for n_buses buses of n_functions functions each. */
void txn_tags_init (TxnTagSet *s, const char *name, uint32_t n_buses, uint32_t n_functions);
/* Rows for every requester an enumerated fabric has: its highest bus, its most functions. */
void txn_tags_init_fabric (TxnTagSet *s, const char *name, const Fabric *f);
void txn_tags_clear (TxnTagSet *s);
/* Claim `tag` for `requester`; returns how many requesters now hold that tag number. */
uint32_t txn_tags_claim (TxnTagSet *s, uint16_t requester, uint16_t tag);
void txn_tags_release (TxnTagSet *s, uint16_t requester, uint16_t tag);
