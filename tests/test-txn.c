/* test-txn.c — the transaction layer's requester and completer (models/txn/). Every expected figure is worked out
 * by hand from the Base Specification r6.3's rules: the 4 KB and MPS/MRRS limits of a request (§2.2.7), the byte
 * enables (§2.2.5), tags (§2.2.6.2), the byte count of a completion (§2.2.9) and the RCB rule for cutting a read
 * into completions (§2.3.1.1). */
#include <check.h>

#include "models/txn/completer.h"
#include "models/txn/requester.h"
#include "models/txn/tags.h"
#include "tests/common.h"

/* --- requester ------------------------------------------------------------------------------------------------ */

/* The sizes a requester cuts a read of `len` bytes at addr into; how many. */
static guint
cut_read (const TxnRequester *q, uint64_t addr, uint64_t len, uint32_t *out, guint max)
{
  guint n = 0;
  while (len > 0 && n < max) {
    out[n] = txn_req_size (q, TLP_MRD, addr, len);
    addr += out[n];
    len -= out[n++];
  }
  return n;
}

static void
assert_sizes (const uint32_t *got, guint n, const uint32_t *want, guint n_want)
{
  ck_assert_uint_eq (n, n_want);
  for (guint i = 0; i < n; i++)
    ck_assert_msg (got[i] == want[i], "request %u: %u bytes, want %u", i, got[i], want[i]);
}

/* 1000 bytes at 0x3F0 with MRRS 256 (§2.2.7: no request above MRRS, none across 4 KB). Greedy, as AN-456: three
 * of 256 and the 232 left (0x3F0 + 1000 = 0x7D8 stays in the first page). Aligned to MRRS: up to 0x400 is 16,
 * then 0x400-0x4FF, 0x500-0x5FF, 0x600-0x6FF, and 0x700-0x7D7 is 216. */
START_TEST (test_read_cut_mrrs)
{
  TxnRequester q;
  TxnReqParams p = { .max_payload_bytes = 128, .max_read_request_bytes = 256, .tags = 1 };
  txn_req_init (&q, &p);
  uint32_t out[8];
  const uint32_t greedy[] = { 256, 256, 256, 232 };
  assert_sizes (out, cut_read (&q, 0x3F0, 1000, out, 8), greedy, G_N_ELEMENTS (greedy));
  txn_req_clear (&q);
  p.align = TRUE;
  txn_req_init (&q, &p);
  const uint32_t aligned[] = { 16, 256, 256, 256, 216 };
  assert_sizes (out, cut_read (&q, 0x3F0, 1000, out, 8), aligned, G_N_ELEMENTS (aligned));
  txn_req_clear (&q);
}
END_TEST

/* 4 KB: 600 bytes at 0xF00 with MRRS 512 stop at 0x1000 (256 bytes), then 344; a write of 300 bytes at 0xFF0 with
 * MPS 256 is 16 (to the page), then 256, then 28. */
START_TEST (test_cut_4k)
{
  TxnRequester q;
  TxnReqParams p = { .max_payload_bytes = 256, .max_read_request_bytes = 512, .tags = 1 };
  txn_req_init (&q, &p);
  uint32_t out[8];
  const uint32_t reads[] = { 256, 344 };
  assert_sizes (out, cut_read (&q, 0xF00, 600, out, 8), reads, G_N_ELEMENTS (reads));
  ck_assert_uint_eq (txn_req_size (&q, TLP_MWR, 0xFF0, 300), 16);
  ck_assert_uint_eq (txn_req_size (&q, TLP_MWR, 0x1000, 284), 256);
  ck_assert_uint_eq (txn_req_size (&q, TLP_MWR, 0x1100, 28), 28);
  txn_req_clear (&q);
}
END_TEST

/* §2.2.5: 1st DW BE and Last DW BE, bit k enabling byte k of the DW. 7 bytes at offset 1 cover bytes 1-3 of the
 * first DW (1110b) and all of the second (1111b); 1 byte at offset 2 is 0100b with Last BE 0000b (one DW); 3 bytes
 * at offset 3 are byte 3 (1000b) and bytes 0-1 of the next DW (0011b); 8 aligned bytes 1111b/1111b. */
START_TEST (test_byte_enables)
{
  const struct {
    uint64_t addr;
    uint32_t len;
    uint8_t first, last;
  } cases[] = { { 1, 7, 0xE, 0xF }, { 2, 1, 0x4, 0x0 }, { 0x1003, 3, 0x8, 0x3 }, { 0x40, 8, 0xF, 0xF },
                { 0x40, 4, 0xF, 0x0 }, { 0x41, 10, 0xE, 0x7 } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    uint8_t f = 0xff, l = 0xff;
    txn_req_byte_enables (cases[i].addr, cases[i].len, &f, &l);
    ck_assert_msg (f == cases[i].first && l == cases[i].last, "%u bytes at 0x%" G_GINT64_MODIFIER "x: 1st BE %x, "
                   "last BE %x; want %x, %x", cases[i].len, cases[i].addr, f, l, cases[i].first, cases[i].last);
  }
}
END_TEST

/* §2.2.6.2 and pcie-protocol.md §6: a 5-bit tag field holds 32 tags, an 8-bit one 256, a 10-bit one 768 usable
 * (256..1023), a 14-bit one 16384. */
START_TEST (test_tag_bits)
{
  ck_assert_uint_eq (txn_req_tag_bits (32), 5);
  ck_assert_uint_eq (txn_req_tag_bits (33), 8);
  ck_assert_uint_eq (txn_req_tag_bits (256), 8);
  ck_assert_uint_eq (txn_req_tag_bits (257), 10);
  ck_assert_uint_eq (txn_req_tag_bits (768), 10);
  ck_assert_uint_eq (txn_req_tag_bits (769), 14);
  ck_assert_uint_eq (txn_req_tag_bits (16385), 0);
}
END_TEST

/* Tags from first_tag, lowest first; no tag is handed out twice while held, none beyond `tags`; the one freed last
 * goes first. */
START_TEST (test_tags_unique)
{
  TxnRequester q;
  TxnReqParams p = { .max_payload_bytes = 256, .max_read_request_bytes = 256, .tags = 3, .first_tag = 256 };
  txn_req_init (&q, &p);
  ck_assert_uint_eq (txn_req_issue (&q, 0x0, 64, 0), 256);
  ck_assert_uint_eq (txn_req_issue (&q, 0x100, 64, 0), 257);
  ck_assert_uint_eq (txn_req_issue (&q, 0x200, 64, 0), 258);
  ck_assert_int_eq (txn_req_fits (&q, 0x300, 64, 0), TXN_REQ_NO_TAG);
  Tlp c = { .kind = TLP_CPLD, .address = 0x100, .payload_bytes = 64, .length_bytes = 64, .tag = 257 };
  gboolean done = FALSE;
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), 0);
  ck_assert (done);
  ck_assert_int_eq (txn_req_fits (&q, 0x300, 64, 0), TXN_REQ_OK);
  ck_assert_int_eq (txn_req_fits (&q, 0x300, 64, 1), TXN_REQ_NO_TAG); /* one kept back for another use */
  ck_assert_uint_eq (txn_req_issue (&q, 0x300, 64, 0), 257);
  ck_assert_ptr_null (txn_req_tag (&q, 259));
  ck_assert_ptr_null (txn_req_tag (&q, 5));
  txn_req_clear (&q);
}
END_TEST

/* Each completion of a 256-byte read at 0x1000 must start where the last ended (§2.3.1.1) and carry as byte count
 * what the read still owes (§2.2.9); a tag no read holds is an Unexpected Completion (§2.3.2). */
START_TEST (test_completion_checks)
{
  TxnRequester q;
  TxnReqParams p = { .max_payload_bytes = 256, .max_read_request_bytes = 256, .tags = 4 };
  txn_req_init (&q, &p);
  uint16_t tag = txn_req_issue (&q, 0x1000, 256, 0);
  gboolean done;
  Tlp c = { .kind = TLP_CPLD, .address = 0x1000, .payload_bytes = 64, .length_bytes = 200, .tag = tag };
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), TXN_CPL_BYTE_COUNT); /* 256 owed, not 200 */
  ck_assert (!done);
  c = (Tlp) { .kind = TLP_CPLD, .address = 0x1080, .payload_bytes = 64, .length_bytes = 192, .tag = tag };
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), TXN_CPL_ADDRESS); /* 0x1040 was due */
  c = (Tlp) { .kind = TLP_CPLD, .address = 0x10C0, .payload_bytes = 128, .length_bytes = 64, .tag = tag };
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), TXN_CPL_BYTE_COUNT); /* 128 owed, and 128 come */
  ck_assert (done);
  c = (Tlp) { .kind = TLP_CPLD, .address = 0x3000, .payload_bytes = 128, .length_bytes = 64, .tag = tag };
  tag = txn_req_issue (&q, 0x3000, 64, 0);
  c.tag = tag;
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), TXN_CPL_EXCESS); /* 128 bytes where 64 are owed */
  ck_assert (done);
  c.tag = tag;
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), TXN_CPL_UNEXPECTED); /* the tag is free again */
  c.tag = 9;
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), TXN_CPL_UNEXPECTED); /* not one of its tags */
  /* A clean read: 0x2000, 128 bytes, as 64 + 64 with byte counts 128 and 64. */
  tag = txn_req_issue (&q, 0x2000, 128, 0);
  c = (Tlp) { .kind = TLP_CPLD, .address = 0x2000, .payload_bytes = 64, .length_bytes = 128, .tag = tag };
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), 0);
  ck_assert (!done);
  c = (Tlp) { .kind = TLP_CPLD, .address = 0x2040, .payload_bytes = 64, .length_bytes = 64, .tag = tag };
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), 0);
  ck_assert (done);
  txn_req_clear (&q);
}
END_TEST

/* Completion buffer: 512 bytes hold two reads of 256 and not a third. Header slots: a 256-byte read at 0x20 touches
 * RCB-64 blocks 0x0, 0x40, 0x80, 0xC0 and 0x100, so it may come back as 5 completions; with 8 slots one fits and a
 * second such read does not, until the first's completions come in (64 bytes at 0x20 frees one slot and 64 bytes). */
START_TEST (test_completion_buffer)
{
  TxnRequester q;
  TxnReqParams p = { .max_payload_bytes = 256, .max_read_request_bytes = 256, .tags = 8, .rcb_bytes = 64,
                     .cpl_buffer_bytes = 512 };
  txn_req_init (&q, &p);
  txn_req_issue (&q, 0x0, 256, 0);
  ck_assert_int_eq (txn_req_fits (&q, 0x100, 256, 0), TXN_REQ_OK);
  txn_req_issue (&q, 0x100, 256, 0);
  ck_assert_int_eq (txn_req_fits (&q, 0x200, 256, 0), TXN_REQ_NO_BUFFER);
  ck_assert_int_eq (txn_req_fits (&q, 0x200, 1, 0), TXN_REQ_NO_BUFFER);
  ck_assert_uint_eq (q.cpl_bytes_high_water, 512);
  txn_req_clear (&q);
  p.cpl_buffer_bytes = 0;
  p.cpl_buffer_headers = 8;
  txn_req_init (&q, &p);
  uint16_t tag = txn_req_issue (&q, 0x20, 256, 0);
  ck_assert_uint_eq (q.cpl_headers, 5);
  ck_assert_int_eq (txn_req_fits (&q, 0x1020, 256, 0), TXN_REQ_NO_BUFFER); /* 5 + 5 > 8 */
  ck_assert_int_eq (txn_req_fits (&q, 0x1000, 192, 0), TXN_REQ_OK); /* 3 blocks: 5 + 3 = 8 */
  gboolean done;
  Tlp c = { .kind = TLP_CPLD, .address = 0x20, .payload_bytes = 32, .length_bytes = 256, .tag = tag };
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), 0);
  ck_assert_uint_eq (q.cpl_headers, 4);
  /* The rest as one completion: the 3 slots it did not use come back with the tag. */
  c = (Tlp) { .kind = TLP_CPLD, .address = 0x40, .payload_bytes = 224, .length_bytes = 224, .tag = tag };
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), 0);
  ck_assert (done);
  ck_assert_uint_eq (q.cpl_headers, 0);
  txn_req_clear (&q);
}
END_TEST

/* A requester whose source picks the tag (a CPU core's number), 16 tags, holding tag 3 for 8 bytes at 0x100. */
static void
core_requester (TxnRequester *q)
{
  txn_req_init (q, &(TxnReqParams) { .max_payload_bytes = 4096, .max_read_request_bytes = 4096, .tags = 16,
                                      .source_tags = TRUE });
  txn_req_issue_tag (q, 3, 0x100, 8, 0);
}

/* The tag is held until its last byte, then free again; claiming it twice is a model bug (exit 70, below). */
START_TEST (test_issue_tag)
{
  TxnRequester q;
  core_requester (&q);
  txn_req_issue_tag (&q, 15, 0x200, 8, 0);
  ck_assert_ptr_nonnull (txn_req_tag (&q, 3));
  ck_assert_uint_eq (q.n_free, 14);
  Tlp c = { .kind = TLP_CPLD, .address = 0x100, .payload_bytes = 8, .length_bytes = 8, .tag = 3 };
  gboolean done;
  ck_assert_uint_eq (txn_req_complete (&q, &c, &done), 0);
  ck_assert (done);
  ck_assert_ptr_null (txn_req_tag (&q, 3));
  txn_req_issue_tag (&q, 3, 0x100, 8, 0); /* free again */
  ck_assert_uint_eq (q.n_free, 14);
  txn_req_clear (&q);
}
END_TEST

START_TEST (test_issue_tag_twice_exits_70)
{
  TxnRequester q;
  core_requester (&q);
  txn_req_issue_tag (&q, 3, 0x200, 8, 0);
}
END_TEST

/* §6.1.4: an MSI is a posted 1-DW memory write of the message data to the message address; a 32-bit address takes a
 * 3-DW header. */
START_TEST (test_msi)
{
  TlpPool *pool = tlp_pool_new ();
  Tlp *t = txn_req_msi (pool, 0xFEE00000u, 0x41, 0x0100);
  ck_assert_int_eq (t->kind, TLP_MSI);
  ck_assert_uint_eq (t->payload_bytes, 4);
  ck_assert_uint_eq (t->header_bytes, 12);
  ck_assert_uint_eq (t->address, 0xFEE00000u);
  ck_assert_uint_eq (t->requester, 0x0100);
  ck_assert_uint_eq (t->cookie, 0x41);
  tlp_free (pool, t);
  tlp_pool_free (pool);
}
END_TEST

/* --- completer ------------------------------------------------------------------------------------------------ */

static Tlp *
read_req (TlpPool *pool, uint64_t addr, uint32_t len, uint16_t requester, uint16_t tag)
{
  Tlp *r = tlp_alloc (pool);
  tlp_set (r, TLP_MRD, FALSE, addr, len);
  r->requester = requester;
  r->tag = tag;
  return r;
}

/* A completer of MPS 256 on an engine of its own, and the pool its reads come from. */
typedef struct {
  SimEngine *e;
  TlpPool *pool;
  TxnCompleter c;
} CplRig;

static void
rig_open (CplRig *r, const TxnCplParams *p)
{
  r->e = sim_engine_new (1);
  r->pool = tlp_pool_new ();
  txn_cpl_init (&r->c, "t", p, 256, r->e, NULL, NULL);
}

static void
rig_close (CplRig *r)
{
  txn_cpl_clear (&r->c, r->pool);
  tlp_pool_free (r->pool);
  sim_engine_free (r->e);
}

/* The completions a completer cuts a read into, emitted one after another: their sizes and byte counts. */
static guint
drain (TxnCompleter *c, TlpPool *pool, uint32_t *size, uint32_t *count, guint max)
{
  guint n = 0;
  for (Tlp *r; (r = txn_cpl_next (c)) != NULL && n < max; n++) {
    gboolean last;
    Tlp *cpl = txn_cpl_emit (c, r, txn_cpl_size (c, r), pool, &last);
    ck_assert_int_eq (cpl->kind, TLP_CPLD);
    ck_assert_uint_eq (cpl->requester, 0x0200);
    ck_assert_uint_eq (cpl->tag, 7);
    size[n] = cpl->payload_bytes;
    count[n] = cpl->length_bytes;
    tlp_free (pool, cpl);
  }
  return n;
}

/* §2.3.1.1 with MPS 256: 512 bytes at 0x10050. RCB 64: the first completion ends at the last RCB multiple within
 * MPS, 0x10140 (240 bytes), then 256 (to 0x10240), then 16; byte counts 512, 272, 16. RCB 128: first to 0x10100 (176),
 * then 256, then 80; byte counts 512, 336, 80. */
START_TEST (test_completions_rcb)
{
  const uint32_t rcb[] = { 64, 128 };
  const uint32_t want_size[2][3] = { { 240, 256, 16 }, { 176, 256, 80 } };
  const uint32_t want_count[2][3] = { { 512, 272, 16 }, { 512, 336, 80 } };
  for (guint k = 0; k < 2; k++) {
    CplRig r;
    rig_open (&r, &(TxnCplParams) { .rcb_bytes = rcb[k], .policy = CPL_POLICY_MPS, .in_order = TRUE });
    txn_cpl_accept (&r.c, read_req (r.pool, 0x10050, 512, 0x0200, 7), 0, 0);
    uint32_t size[8], count[8];
    guint n = drain (&r.c, r.pool, size, count, 8);
    ck_assert_uint_eq (n, 3);
    for (guint i = 0; i < 3; i++)
      ck_assert_msg (size[i] == want_size[k][i] && count[i] == want_count[k][i], "RCB %u, completion %u: %u bytes, "
                     "byte count %u", rcb[k], i, size[i], count[i]);
    ck_assert_uint_eq (r.c.n, 0);
    ck_assert_uint_eq (tlp_pool_live (r.pool), 0); /* the read went back to the pool with its last completion */
    rig_close (&r);
  }
}
END_TEST

/* The RCB policy: one completion per RCB block, 256 bytes at 0x10020 with RCB 64 as 32 + 64 + 64 + 64 + 32 (the
 * spec's own example, §2.3.1.1). */
START_TEST (test_completions_rcb_policy)
{
  CplRig r;
  rig_open (&r, &(TxnCplParams) { .rcb_bytes = 64, .policy = CPL_POLICY_RCB, .in_order = TRUE });
  txn_cpl_accept (&r.c, read_req (r.pool, 0x10020, 256, 0x0200, 7), 0, 0);
  uint32_t size[8], count[8];
  const uint32_t want[] = { 32, 64, 64, 64, 32 };
  assert_sizes (size, drain (&r.c, r.pool, size, count, 8), want, G_N_ELEMENTS (want));
  rig_close (&r);
}
END_TEST

/* Full blocks (completer.h, Cut) with RCB 64, MPS 256, blocks of 512: a read covering every line of an aligned
 * 512-byte block gets one line first, then completions up to MPS on RCB multiples; any other read one per line.
 * By hand: [0, 512): 64 (to 0x40), then 256 (to 0x140), then the 192 left. [40, 460) (pcie-bench's 416 bytes 41
 * into a 512-byte slot, whole DWs): its lines 0-7 are the block's all: 24 (to 0x40), 256 (to 0x140), 140. [64,
 * 576): lines 1-8, neither block whole: eight 64-byte completions. [0, 256): half a block: four of 64. The same
 * reads with full_block_bytes 0 are all cut line by line. */
START_TEST (test_completions_full_block)
{
  const struct {
    uint64_t addr;
    uint32_t len, n;
    uint32_t want[8];
  } c[] = {
    { 0x10000, 512, 3, { 64, 256, 192 } },
    { 0x10028, 420, 3, { 24, 256, 140 } },
    { 0x10040, 512, 8, { 64, 64, 64, 64, 64, 64, 64, 64 } },
    { 0x10000, 256, 4, { 64, 64, 64, 64 } },
  };
  for (guint k = 0; k < G_N_ELEMENTS (c); k++)
    for (uint32_t block = 0; block <= 512; block += 512) {
      CplRig r;
      rig_open (&r, &(TxnCplParams) { .rcb_bytes = 64, .policy = CPL_POLICY_RCB, .full_block_bytes = block,
                                      .in_order = TRUE });
      txn_cpl_accept (&r.c, read_req (r.pool, c[k].addr, c[k].len, 0x0200, 7), 0, 0);
      uint32_t size[16], count[16];
      guint n = drain (&r.c, r.pool, size, count, 16);
      guint lines = (guint) ((c[k].addr + c[k].len + 63) / 64 - c[k].addr / 64);
      if (block == 0)
        ck_assert_msg (n == lines, "read %u without full blocks: %u completions, want one per line (%u)", k, n, lines);
      else
        assert_sizes (size, n, c[k].want, c[k].n);
      rig_close (&r);
    }
  ck_assert (txn_cpl_full_block (0x10028, 420, 64, 512) && !txn_cpl_full_block (0x10028, 408, 64, 512));
  ck_assert (txn_cpl_full_block (0x1fe00, 4100, 64, 4096) == FALSE && txn_cpl_full_block (0, 4096, 64, 4096));
}
END_TEST

/* Room (completer.h): with queue_tlps 6, line by line (RCB 64, MPS 256), a completer with nothing held takes
 * even a read of more completions (512 bytes, eight); holding a 256-byte read's four, it takes a 128-byte read
 * (4 + 2 = 6) and not a 192-byte one (4 + 3 = 7), until one of the four has left (3 + 3 = 6). A whole 512-byte block
 * counts as its three completions (64 + 256 + 192): 3 + 3 = 6 fits. depth still bounds the reads held. */
START_TEST (test_completion_room)
{
  CplRig r;
  rig_open (&r, &(TxnCplParams) { .rcb_bytes = 64, .policy = CPL_POLICY_RCB, .full_block_bytes = 512,
                                  .in_order = TRUE, .queue_tlps = 6 });
  Tlp *big = read_req (r.pool, 0x10040, 512, 0x0200, 7), *small = read_req (r.pool, 0x20000, 128, 0x0200, 8);
  Tlp *three = read_req (r.pool, 0x30000, 192, 0x0200, 9), *block = read_req (r.pool, 0x40000, 512, 0x0200, 10);
  ck_assert (txn_cpl_room (&r.c, big));
  txn_cpl_accept (&r.c, read_req (r.pool, 0x10000, 256, 0x0200, 7), 0, 0);
  ck_assert (txn_cpl_room (&r.c, small));
  ck_assert (!txn_cpl_room (&r.c, three));
  ck_assert (!txn_cpl_room (&r.c, block));
  Tlp *head = txn_cpl_next (&r.c);
  gboolean last;
  tlp_free (r.pool, txn_cpl_emit (&r.c, head, txn_cpl_size (&r.c, head), r.pool, &last));
  ck_assert (!last && txn_cpl_room (&r.c, three) && txn_cpl_room (&r.c, block));
  r.c.p.depth = 1;
  ck_assert (!txn_cpl_room (&r.c, small));
  for (Tlp **t = (Tlp *[]) { big, small, three, block, NULL }; *t != NULL; t++)
    tlp_free (r.pool, *t);
  rig_close (&r);
}
END_TEST

/* Ready time = accepted + latency + extra + bytes x per-byte cost: 100 ns + 40 ns + 256 x 2.5 ps = 140 640 ps, from
 * not_before when that is later. */
START_TEST (test_latency)
{
  CplRig r;
  rig_open (&r, &(TxnCplParams) { .rcb_bytes = 64, .in_order = TRUE, .latency_ps = 100000, .ps_per_byte = 2.5 });
  ck_assert_uint_eq (txn_cpl_accept (&r.c, read_req (r.pool, 0, 256, 1, 1), 0, 40000), 140640);
  ck_assert_uint_eq (txn_cpl_accept (&r.c, read_req (r.pool, 0, 256, 1, 2), 5000, 0), 5000 + 100000 + 640);
  rig_close (&r);
}
END_TEST

/* Any order (§2.4.1, Table 2-40: a completion may pass one of another transaction): the read ready first goes
 * first, the older of two ready at once; in order, arrival order whatever the ready times. */
START_TEST (test_order)
{
  for (int in_order = 0; in_order < 2; in_order++) {
    CplRig r;
    rig_open (&r, &(TxnCplParams) { .rcb_bytes = 64, .in_order = in_order });
    const SimTime extra[] = { 900, 300, 300, 100, 900 }; /* tags 0..4 */
    for (uint16_t t = 0; t < 5; t++)
      txn_cpl_accept (&r.c, read_req (r.pool, 0x1000 * t, 64, 1, t), 0, extra[t]);
    const uint16_t any[] = { 3, 1, 2, 0, 4 };
    for (guint i = 0; i < 5; i++) {
      Tlp *q = txn_cpl_next (&r.c);
      ck_assert_uint_eq (q->tag, in_order ? i : any[i]);
      gboolean last;
      tlp_free (r.pool, txn_cpl_emit (&r.c, q, txn_cpl_size (&r.c, q), r.pool, &last));
      ck_assert (last);
    }
    ck_assert_ptr_null (txn_cpl_next (&r.c));
    rig_close (&r);
  }
}
END_TEST

/* The return path: one completion at a time, each overhead + size x per-byte cost after the later of its data
 * being ready and the previous one done. 256 bytes with MPS 128 after 100 ns: 128-byte completions at
 * 100 + 10 + 128 x 0.25 = 142 ns and 142 + 42 = 184 ns. */
typedef struct {
  TxnCompleter c;
  TlpPool *pool;
  SimTime at[4];
  uint32_t size[4];
  guint n;
} PathRig;

static void
path_fire (SimEngine *e, void *ctx, uint64_t size)
{
  PathRig *r = ctx;
  gboolean last;
  Tlp *cpl = txn_cpl_emit_planned (&r->c, r->pool, &last);
  ck_assert_uint_eq (cpl->payload_bytes, size);
  r->at[r->n] = sim_now (e);
  r->size[r->n++] = cpl->payload_bytes;
  tlp_free (r->pool, cpl);
  txn_cpl_plan_done (&r->c);
}

START_TEST (test_return_path)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  PathRig r = { .pool = tlp_pool_new () };
  TxnCplParams p = { .rcb_bytes = 64, .latency_ps = 100000, .cpl_overhead_ps = 10000, .cpl_ps_per_byte = 250 };
  txn_cpl_init (&r.c, "t", &p, 128, e, path_fire, &r);
  txn_cpl_accept (&r.c, read_req (r.pool, 0, 256, 1, 1), 0, 0);
  txn_cpl_plan (&r.c);
  sim_run (e);
  ck_assert_uint_eq (r.n, 2);
  ck_assert_uint_eq (r.at[0], 142000);
  ck_assert_uint_eq (r.at[1], 184000);
  ck_assert_uint_eq (r.size[0] + r.size[1], 256);
  txn_cpl_clear (&r.c, r.pool);
  tlp_pool_free (r.pool);
}
END_TEST

/* Groups of two (cpl_group_tlps): a read's first, third, ... completion pays the overhead, the others only their
 * bytes, and each read starts a group of its own. 192 bytes then 64 in 64-byte completions, both ready at 100 ns,
 * 10 ns + 0.25 ps/B: 100 + 10 + 16 = 126, + 16 = 142, + 10 + 16 = 168, and the second read's 168 + 26 = 194 (with
 * every completion paying: 126, 152, 178, 204). */
START_TEST (test_return_path_groups)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  PathRig r = { .pool = tlp_pool_new () };
  TxnCplParams p = { .rcb_bytes = 64, .latency_ps = 100000, .cpl_overhead_ps = 10000, .cpl_ps_per_byte = 250,
                     .cpl_group_tlps = 2 };
  txn_cpl_init (&r.c, "t", &p, 64, e, path_fire, &r);
  txn_cpl_accept (&r.c, read_req (r.pool, 0, 192, 1, 1), 0, 0);
  txn_cpl_accept (&r.c, read_req (r.pool, 4096, 64, 1, 2), 0, 0);
  txn_cpl_plan (&r.c);
  sim_run (e);
  ck_assert_uint_eq (r.n, 4);
  const SimTime want[] = { 126000, 142000, 168000, 194000 };
  for (guint i = 0; i < 4; i++) {
    ck_assert_uint_eq (r.at[i], want[i]);
    ck_assert_uint_eq (r.size[i], 64);
  }
  txn_cpl_clear (&r.c, r.pool);
  tlp_pool_free (r.pool);
}
END_TEST

/* §2.2.6.2: a requester never holds one tag twice, so a second read with requester 0x0100's tag 5 while the first
 * is held is a model bug: exit 70 (SIM_INVARIANT). Another requester's tag 5 is fine. Runs in Check's child. */
START_TEST (test_tag_reuse_exits_70)
{
  CplRig r;
  rig_open (&r, &(TxnCplParams) { .rcb_bytes = 64, .in_order = TRUE, .check_tags = TRUE });
  txn_cpl_accept (&r.c, read_req (r.pool, 0, 64, 0x0100, 5), 0, 0);
  txn_cpl_accept (&r.c, read_req (r.pool, 0, 64, 0x0200, 5), 0, 0);
  txn_cpl_accept (&r.c, read_req (r.pool, 0x40, 64, 0x0100, 5), 0, 0);
}
END_TEST

/* A many-requester completer's set (§2.2.6.2): tags are per requester, so 0x0100's tag 5 and 0x0200's tag 5 are
 * both outstanding (2 holders of number 5), and 0x0100's tag 5 is free again once released. Function 1 of bus 2 has
 * tags of its own. */
START_TEST (test_tag_set)
{
  TxnTagSet *s = g_new0 (TxnTagSet, 1);
  txn_tags_init (s, "t", 3, 2);
  ck_assert_uint_eq (txn_tags_claim (s, 0x0100, 5), 1);
  ck_assert_uint_eq (txn_tags_claim (s, 0x0200, 5), 2);
  ck_assert_uint_eq (txn_tags_claim (s, 0x0201, 5), 3);
  txn_tags_release (s, 0x0100, 5);
  ck_assert_uint_eq (txn_tags_claim (s, 0x0100, 5), 3);
  ck_assert_uint_eq (txn_tags_claim (s, 0x0100, 16383), 1);
  txn_tags_clear (s);
  g_free (s);
}
END_TEST

/* A tag claimed twice by one requester, and a requester beyond the buses the set was sized for: exit 70. */
START_TEST (test_tag_set_refuses_exits_70)
{
  TxnTagSet *s = g_new0 (TxnTagSet, 1);
  txn_tags_init (s, "t", 3, 2);
  if (_i == 0) {
    txn_tags_claim (s, 0x0100, 5);
    txn_tags_claim (s, 0x0100, 5);
  } else
    txn_tags_claim (s, 0x0300, 5); /* bus 3 of buses 0..2 */
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("txn");
  TCase *tc = tcase_create ("txn");
  tcase_add_test (tc, test_read_cut_mrrs);
  tcase_add_test (tc, test_cut_4k);
  tcase_add_test (tc, test_byte_enables);
  tcase_add_test (tc, test_tag_bits);
  tcase_add_test (tc, test_tags_unique);
  tcase_add_test (tc, test_completion_checks);
  tcase_add_test (tc, test_completion_buffer);
  tcase_add_test (tc, test_issue_tag);
  tcase_add_exit_test (tc, test_issue_tag_twice_exits_70, 70);
  tcase_add_test (tc, test_msi);
  tcase_add_test (tc, test_completions_rcb);
  tcase_add_test (tc, test_completions_rcb_policy);
  tcase_add_test (tc, test_completions_full_block);
  tcase_add_test (tc, test_completion_room);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_order);
  tcase_add_test (tc, test_return_path);
  tcase_add_test (tc, test_return_path_groups);
  tcase_add_exit_test (tc, test_tag_reuse_exits_70, 70);
  tcase_add_test (tc, test_tag_set);
  tcase_add_loop_exit_test (tc, test_tag_set_refuses_exits_70, 70, 0, 2);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
