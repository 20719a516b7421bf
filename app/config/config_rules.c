/* config_rules.c — the rules that need several keys, checked once every value of a config is converted.
 *
 * The keys involved may come from different files, a --set or the table's defaults, so no single value can be
 * refused on its own; each error points at the value the user wrote whose change would fix it (the config's 1:1
 * when all involved are defaults). Also here: the datapath default that follows the link, and the fabric keys a
 * config without a fabric must not give.
 */
#include <math.h>
#include <string.h>

#include "app/config/config_private.h"
#include "app/base/error.h"
#include "models/devices/hardip.h"
#include "models/link/link.h"

/* The node of the first of `paths` that some file or --set gave, else the config's root (1:1): an error about a
 * combination points at a value the user wrote, the one named first being the likelier fix. */
static const YNode *
given_node (const Walk *w, const YNode *root, const char *const *paths)
{
  for (; *paths; paths++) {
    const YNode *n = g_hash_table_lookup (w->seen, *paths);
    if (n)
      return n;
  }
  return root;
}

/* The chaining-DMA engine's limits that come from AN-456's descriptor format, checked here where the keys and
 * their places are known (the models check them again, as parameter structs tests fill by hand, but can name
 * no key). A descriptor is 4 DWs, 16 bytes; the table header counts descriptors in 16 bits, so a transfer takes
 * at most 65,535; one fetch is one MRd, so it fits a read request; and the FIFO must hold a whole fetch, or no
 * fetch would ever be due. A channel's buffer is 1 GB / dma.channels (models/workloads/system.c's memory map). The
 * streaming workload has no engine and ignores these keys, so they are not checked for it. */
#define DESC_BYTES 16
#define MAX_DESCRIPTORS 65535
#define BUFFER_BYTES (1ll << 30)

static gboolean
check_dma (Walk *w, const YNode *root, GError **error)
{
  const PsConfig *c = w->cfg;
  if (c->benchmark.workload != PS_WORKLOAD_CHAINING_DMA)
    return TRUE;
  const YNode *at;
  int64_t fetch = c->dma.desc_per_fetch, fifo = c->dma.desc_fifo_entries, mrrs = c->link.max_read_request;
  if (fetch > fifo) {
    at = given_node (w, root, (const char *const[]) { "dma.desc_per_fetch", "dma.desc_fifo_entries", NULL });
    ytree_error (error, PS_ERROR_DATA, at,
                 "dma.desc_per_fetch (%" G_GINT64_FORMAT ") is more than dma.desc_fifo_entries (%" G_GINT64_FORMAT
                 "): the descriptor FIFO must hold a whole fetch; raise dma.desc_fifo_entries to %" G_GINT64_FORMAT
                 " or lower dma.desc_per_fetch to %" G_GINT64_FORMAT, fetch, fifo, fetch, fifo);
    return FALSE;
  }
  if (fetch * DESC_BYTES > mrrs) {
    at = given_node (w, root, (const char *const[]) { "dma.desc_per_fetch", "link.max_read_request", NULL });
    int64_t need = 128;
    while (need < fetch * DESC_BYTES)
      need *= 2;
    ytree_error (error, PS_ERROR_DATA, at,
                 "dma.desc_per_fetch (%" G_GINT64_FORMAT ") descriptors of %d bytes are %" G_GINT64_FORMAT
                 " bytes, more than one read request (link.max_read_request %" G_GINT64_FORMAT "); lower "
                 "dma.desc_per_fetch to %" G_GINT64_FORMAT " or raise link.max_read_request to %" G_GINT64_FORMAT,
                 fetch, DESC_BYTES, fetch * DESC_BYTES, mrrs, mrrs / DESC_BYTES, need);
    return FALSE;
  }
  int64_t buffer = BUFFER_BYTES / c->dma.channels & ~(int64_t) 0xfff;
  if (c->benchmark.transfer_bytes > buffer) {
    at = given_node (w, root, (const char *const[]) { "benchmark.transfer_bytes", "dma.channels", NULL });
    ytree_error (error, PS_ERROR_DATA, at,
                 "benchmark.transfer_bytes (%" G_GINT64_FORMAT ") is more than a channel's buffer, %" G_GINT64_FORMAT
                 " bytes (1 GB over dma.channels %" G_GINT64_FORMAT "); transfer at most %" G_GINT64_FORMAT " bytes",
                 c->benchmark.transfer_bytes, buffer, c->dma.channels, buffer);
    return FALSE;
  }
  if (c->dma.desc_max_bytes % 4 != 0) {
    at = given_node (w, root, (const char *const[]) { "dma.desc_max_bytes", NULL });
    ytree_error (error, PS_ERROR_DATA, at,
                 "dma.desc_max_bytes must be a multiple of 4 (descriptors move whole DWs), got %" G_GINT64_FORMAT,
                 c->dma.desc_max_bytes);
    return FALSE;
  }
  int64_t t = c->benchmark.transfer_bytes, per = c->dma.desc_max_bytes ? c->dma.desc_max_bytes : t;
  int64_t n = (t + per - 1) / per;
  if (n > MAX_DESCRIPTORS) {
    at = given_node (w, root, (const char *const[]) { "dma.desc_max_bytes", "benchmark.transfer_bytes", NULL });
    /* The smallest descriptor that keeps the count within 16 bits, in whole DWs as every descriptor must be. */
    int64_t least = ((t + MAX_DESCRIPTORS - 1) / MAX_DESCRIPTORS + 3) / 4 * 4;
    ytree_error (error, PS_ERROR_DATA, at,
                 "benchmark.transfer_bytes (%" G_GINT64_FORMAT ") in descriptors of dma.desc_max_bytes (%"
                 G_GINT64_FORMAT ") takes %" G_GINT64_FORMAT " descriptors; AN-456 counts at most %d per transfer: "
                 "raise dma.desc_max_bytes to at least %" G_GINT64_FORMAT " (or 0, one descriptor per transfer)",
                 t, c->dma.desc_max_bytes, n, MAX_DESCRIPTORS, least);
    return FALSE;
  }
  return TRUE;
}

/* Spec §3.4.2, Table "Minimum Initial Flow Control Advertisements": a finite advertisement must let the largest
 * TLP of its type through, or that TLP could never be sent and the run would only stall until the deadlock
 * watchdog fired. Headers: 1 (any finite value, 1..2032, already is). NPD: 1 (2 for AtomicOp completers, which
 * nothing here is; MRds carry no data). PD: Max_Payload_Size / 16. CplD: the smaller of Max_Payload_Size and
 * the largest read request, / 16. The spec's minimum is taken over the largest MPS the component supports;
 * the config knows only the programmed MPS, which is at most that, so this check is the weaker, necessary
 * half of the rule: exactly what one max-size TLP needs. */
static gboolean
check_credit_minimum (Walk *w, const YNode *root, const char *prefix, const PsCredits *cr, GError **error)
{
  const PsConfig *c = w->cfg;
  const struct {
    const char *type;
    int64_t value, min;
    const char *why;
  } rule[] = {
    { "pd", cr->pd, c->link.max_payload / 16, "Max_Payload_Size" },
    { "cpld", cr->cpld, MIN (c->link.max_payload, c->link.max_read_request) / 16,
      "the smaller of Max_Payload_Size and Max_Read_Request_Size" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (rule); i++) {
    if (rule[i].value == 0 || rule[i].value >= rule[i].min)
      continue;
    g_autofree char *key = g_strdup_printf ("%s.%s", prefix, rule[i].type);
    const YNode *at = g_hash_table_lookup (w->seen, key);
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "%s (%" G_GINT64_FORMAT ") is below the spec minimum of %" G_GINT64_FORMAT " credits (%s / 16 "
                 "bytes, spec §3.4.2): no %s TLP could ever be sent; 0 means infinite", key, rule[i].value,
                 rule[i].min, rule[i].why, i == 0 ? "max-payload posted" : "max-size completion");
    return FALSE;
  }
  return TRUE;
}

/* Outside scaled flow control a credit field is 8 bits of headers and 12 of data, and a receiver may have at most
 * 127 header and 2047 data credits outstanding (spec §2.6.1, Base 2.1 §2.6.1.2: half the field's range, so the
 * modular counters stay unambiguous). Scaled flow control (a Data Link Feature of ports that support 16 GT/s, r4.0)
 * multiplies them; it needs a port supporting 16 GT/s (link.gen or link.supported_gen 4+) or flit mode. */
static gboolean
check_credit_unscaled (Walk *w, const YNode *root, const char *prefix, const PsCredits *cr, GError **error)
{
  const PsConfig *c = w->cfg;
  if (MAX (c->link.gen, c->link.supported_gen) >= 4 || c->link.flit_mode)
    return TRUE;
  const struct {
    const char *type;
    int64_t value, max;
  } rule[] = {
    { "ph", cr->ph, 127 }, { "pd", cr->pd, 2047 }, { "nph", cr->nph, 127 },
    { "npd", cr->npd, 2047 }, { "cplh", cr->cplh, 127 }, { "cpld", cr->cpld, 2047 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (rule); i++) {
    if (rule[i].value <= rule[i].max)
      continue;
    g_autofree char *key = g_strdup_printf ("%s.%s", prefix, rule[i].type);
    ytree_error (error, PS_ERROR_DATA, given_node (w, root, (const char *const[]) { key, "link.gen", NULL }),
                 "%s (%" G_GINT64_FORMAT ") is above the %" G_GINT64_FORMAT " credits a receiver may have outstanding "
                 "without scaled flow control (spec §2.6.1), which needs a port supporting 16 GT/s (link.gen or "
                 "link.supported_gen 4+) or flit mode", key, rule[i].value, rule[i].max);
    return FALSE;
  }
  return TRUE;
}

/* A distribution's parameters for its kind (models/base/dist.h makes the same checks, but can name no key): uniform
 * min_ns <= max_ns; lognormal median_ns > 0 and p99_ns >= median_ns; empirical a table of at least one point,
 * values and probabilities non-decreasing, the last probability 1. The error points at the parameter given. */
static gboolean
check_dist (Walk *w, const YNode *root, const char *prefix, const PsDist *d, GError **error)
{
  const char *bad = NULL, *param = NULL;
  if (d->kind == PS_DIST_UNIFORM && d->min_ns > d->max_ns) {
    bad = "max_ns must be at least min_ns";
    param = "max_ns";
  } else if (d->kind == PS_DIST_LOGNORMAL && !(d->median_ns > 0)) {
    bad = "median_ns must be above 0";
    param = "median_ns";
  } else if (d->kind == PS_DIST_LOGNORMAL && d->p99_ns < d->median_ns) {
    bad = "p99_ns must be at least median_ns";
    param = "p99_ns";
  } else if (d->kind == PS_DIST_EMPIRICAL) {
    param = "table";
    const PsPoints *t = &d->table;
    if (t->n == 0)
      bad = "kind empirical needs a table of [value_ns, cumulative probability] pairs";
    for (guint i = 1; i < t->n && !bad; i++)
      if (t->pairs[2 * i] < t->pairs[2 * i - 2] || t->pairs[2 * i + 1] < t->pairs[2 * i - 1])
        bad = "table: values and probabilities must not decrease";
    if (!bad && t->pairs[2 * t->n - 1] != 1)
      bad = "table: the last cumulative probability must be 1";
  }
  /* A parameter the kind does not read would be silently ignored: refused, at the parameter, when it is given
   * where the kind is (the same file) or by a --set. A file's parameters left behind when a later file or a
   * --set changes the kind are that file's description of another distribution, not a mistake. */
  static const char *const used[][3] = { { "value_ns", NULL }, { "min_ns", "max_ns", NULL },
                                         { "median_ns", "p99_ns", NULL }, { "table", NULL } };
  static const char *const all[] = { "value_ns", "min_ns", "max_ns", "median_ns", "p99_ns", "table", NULL };
  g_autofree char *kind_key = g_strdup_printf ("%s.kind", prefix);
  const YNode *kind_at = g_hash_table_lookup (w->seen, kind_key);
  for (const char *const *a = all; !bad && *a; a++) {
    g_autofree char *key = g_strdup_printf ("%s.%s", prefix, *a);
    const YNode *given = g_hash_table_lookup (w->seen, key);
    gboolean here = given && (g_str_has_prefix (given->origin, "--set ")
                              || (kind_at && strcmp (kind_at->origin, given->origin) == 0));
    if (here && !g_strv_contains (used[d->kind], *a)) {
      g_autofree char *reads = g_strjoinv (" and ", (char **) used[d->kind]);
      ytree_error (error, PS_ERROR_DATA, given, "%s is not used by %s.kind %s, which reads %s", key, prefix,
                   cfg_dist_words[d->kind], reads);
      return FALSE;
    }
  }
  if (!bad)
    return TRUE;
  g_autofree char *key = g_strdup_printf ("%s.%s", prefix, param);
  g_autofree char *kind = g_strdup_printf ("%s.kind", prefix);
  const YNode *at = g_hash_table_lookup (w->seen, key);
  if (!at)
    at = g_hash_table_lookup (w->seen, kind);
  ytree_error (error, PS_ERROR_DATA, at ? at : root, "%s: %s", prefix, bad);
  return FALSE;
}

/* A published: block's marks: suspect and accepted figures name figures the block gives, and say why. */
static gboolean
check_published (Walk *w, const YNode *root, GError **error)
{
  PsConfig *c = w->cfg;
  /* A suspect mark is evidence about published figures: it names figures the block gives, and says why. */
  const YNode *suspect_at = g_hash_table_lookup (w->seen, "published.suspect.figures");
  const YNode *reason_at = g_hash_table_lookup (w->seen, "published.suspect.reason");
  if ((suspect_at != NULL) != (reason_at != NULL)) {
    ytree_error (error, PS_ERROR_DATA, suspect_at ? suspect_at : reason_at, "published.suspect needs both figures "
                 "and a reason");
    return FALSE;
  }
  const double published[] = { c->published.dma_read_mbps, c->published.dma_write_mbps,
                               c->published.simultaneous_read_mbps, c->published.simultaneous_write_mbps,
                               c->published.peak_write_mbps, c->published.peak_write_excluding_read_requests_mbps,
                               c->published.peak_read_mbps };
  for (guint i = 0; i < G_N_ELEMENTS (published); i++)
    if ((c->published.suspect_figures & (1u << i)) && !isfinite (published[i])) {
      ytree_error (error, PS_ERROR_DATA, suspect_at, "published.suspect.figures names %s, which the published: "
                   "block does not give", ps_figure_words[i]);
      return FALSE;
    }
  /* An accepted deviation is written down whole: which figures, how far, and why (issue #37). */
  const YNode *acc_at = g_hash_table_lookup (w->seen, "published.accepted.figures");
  const YNode *acc_tol = g_hash_table_lookup (w->seen, "published.accepted.tolerance_pct");
  const YNode *acc_why = g_hash_table_lookup (w->seen, "published.accepted.reason");
  if ((acc_at || acc_tol || acc_why) && !(acc_at && acc_tol && acc_why)) {
    ytree_error (error, PS_ERROR_DATA, acc_at ? acc_at : acc_tol ? acc_tol : acc_why, "published.accepted needs "
                 "figures, tolerance_pct and a reason");
    return FALSE;
  }
  if (acc_tol && !(c->published.accepted_tolerance_pct > 0)) {
    ytree_error (error, PS_ERROR_DATA, acc_tol, "published.accepted.tolerance_pct must be above 0: a figure "
                 "accepted at 0%% would fail on any error");
    return FALSE;
  }
  for (guint i = 0; i < G_N_ELEMENTS (published); i++)
    if ((c->published.accepted_figures & (1u << i)) && !isfinite (published[i])) {
      ytree_error (error, PS_ERROR_DATA, acc_at, "published.accepted.figures names %s, which the published: "
                   "block does not give", ps_figure_words[i]);
      return FALSE;
    }
  return TRUE;
}

/* Credits a port may advertise: infinite completion credits at an endpoint, enough for one TLP, within the unscaled limits, finite at a switch. */
static gboolean
check_credit_rules (Walk *w, const YNode *root, GError **error)
{
  PsConfig *c = w->cfg;
  const YNode *at;
  /* An endpoint advertises infinite completion credits (Base 2.1 §2.6.1, Table 2-37): what bounds the completions
   * coming back to it is its own completion space as a requester (endpoint.completion_buffer_*), never credits. */
  static const char *const cpl_keys[] = { "endpoint.rx_credits.cplh", "endpoint.rx_credits.cpld" };
  for (int i = 0; i < 2; i++) {
    int64_t v = i == 0 ? c->endpoint.rx_credits.cplh : c->endpoint.rx_credits.cpld;
    if (v == 0)
      continue;
    at = g_hash_table_lookup (w->seen, cpl_keys[i]);
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "%s is %" G_GINT64_FORMAT ", finite: an endpoint advertises "
                 "infinite completion credits (spec §2.6.1, Base 2.1 Table 2-37); a requester's room for completions "
                 "is endpoint.completion_buffer_bytes and endpoint.completion_buffer_headers", cpl_keys[i], v);
    return FALSE;
  }
  if (!check_credit_minimum (w, root, "host.rx_credits", &c->host.rx_credits, error)
      || !check_credit_minimum (w, root, "endpoint.rx_credits", &c->endpoint.rx_credits, error)
      || !check_credit_minimum (w, root, "switch.rx_credits", &c->sw.rx_credits, error)
      || !check_credit_unscaled (w, root, "host.rx_credits", &c->host.rx_credits, error)
      || !check_credit_unscaled (w, root, "endpoint.rx_credits", &c->endpoint.rx_credits, error)
      || !check_credit_unscaled (w, root, "switch.rx_credits", &c->sw.rx_credits, error))
    return FALSE;
  /* A switch port holds what it receives until an egress port takes it, in a finite buffer: infinite header
   * credits (0) would let senders queue without bound (pcie-protocol.md §5: only endpoints and root complexes
   * advertise infinite credits, for completions). */
  const struct {
    const char *key;
    int64_t value;
  } sw_hdr[] = { { "switch.rx_credits.ph", c->sw.rx_credits.ph }, { "switch.rx_credits.nph", c->sw.rx_credits.nph },
                 { "switch.rx_credits.cplh", c->sw.rx_credits.cplh } };
  for (size_t i = 0; i < G_N_ELEMENTS (sw_hdr); i++)
    if (sw_hdr[i].value == 0) {
      at = g_hash_table_lookup (w->seen, sw_hdr[i].key);
      ytree_error (error, PS_ERROR_DATA, at ? at : root, "%s is 0, infinite: a switch port's buffers are finite, so "
                   "it advertises finite header credits (pcie-protocol.md §5)", sw_hdr[i].key);
      return FALSE;
    }
  return TRUE;
}

/* Parts within their wholes: a straddling datapath's width, the transaction layer's share of the receive pipeline, the trained rate within the supported one, a switch's DLL latency within its latency, an endpoint's completion headers. */
static gboolean
check_pipelines (Walk *w, const YNode *root, GError **error)
{
  PsConfig *c = w->cfg;
  const YNode *at;
  if (c->endpoint.straddle && c->endpoint.datapath_bits < 512) {
    at = g_hash_table_lookup (w->seen, "endpoint.straddle");
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "endpoint.straddle needs a 512- or 1024-bit datapath (endpoint.datapath_bits is %" G_GINT64_FORMAT
                 "): a narrower beat holds one 256-bit segment at most", c->endpoint.datapath_bits);
    return FALSE;
  }
  /* The transaction layer's part of the receive pipeline is a part of it. */
  if (c->link.rx_transaction_ns > c->link.rx_pipeline_ns) {
    at = given_node (w, root, (const char *const[]) { "link.rx_transaction_ns", "link.rx_pipeline_ns", NULL });
    ytree_error (error, PS_ERROR_DATA, at, "link.rx_transaction_ns %g is a part of link.rx_pipeline_ns (%g): it "
                 "cannot exceed it", c->link.rx_transaction_ns, c->link.rx_pipeline_ns);
    return FALSE;
  }
  /* A link trains at most at the rate both its ports support (spec §4.2.6). */
  if (c->link.supported_gen && c->link.supported_gen < c->link.gen) {
    at = given_node (w, root, (const char *const[]) { "link.supported_gen", "link.gen", NULL });
    ytree_error (error, PS_ERROR_DATA, at, "link.supported_gen %" G_GINT64_FORMAT " is below link.gen %" G_GINT64_FORMAT
                 ": a link cannot train above the rate its ports support", c->link.supported_gen, c->link.gen);
    return FALSE;
  }
  /* switch.h: a port's data link layer latency is a part of its port-to-port latency. */
  if (c->sw.dll_latency_ns > c->sw.latency_ns) {
    at = g_hash_table_lookup (w->seen, "switch.dll_latency_ns");
    if (at == NULL)
      at = g_hash_table_lookup (w->seen, "switch.latency_ns");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "switch.dll_latency_ns %g is a part of switch.latency_ns "
                 "(%g): it cannot exceed it", c->sw.dll_latency_ns, c->sw.latency_ns);
    return FALSE;
  }
  /* An MRRS-sized read at any DW offset touches MRRS / RCB + 1 RCB blocks at most, each a possible completion. */
  int64_t min_hdrs = c->link.max_read_request / c->link.read_completion_boundary + 1;
  if (c->endpoint.completion_buffer_headers != 0 && c->endpoint.completion_buffer_headers < min_hdrs) {
    at = g_hash_table_lookup (w->seen, "endpoint.completion_buffer_headers");
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "endpoint.completion_buffer_headers (%" G_GINT64_FORMAT ") is smaller than the %" G_GINT64_FORMAT
                 " completions one read request may come back as (link.max_read_request %" G_GINT64_FORMAT " / "
                 "read completion boundary %" G_GINT64_FORMAT " + 1): no read could ever be issued",
                 c->endpoint.completion_buffer_headers, min_hdrs, c->link.max_read_request,
                 c->link.read_completion_boundary);
    return FALSE;
  }
  return TRUE;
}

/* Flit mode's rules, tags beyond 8 and 10 bits, and a switch's central memory. */
static gboolean
check_flit_tags_pools (Walk *w, const YNode *root, GError **error)
{
  PsConfig *c = w->cfg;
  const YNode *at;
  /* 64 GT/s has no non-flit mode (spec §4.2.3.3: flit mode is required at 64 GT/s): a false there would be ignored. */
  at = g_hash_table_lookup (w->seen, "link.flit_mode");
  if (c->link.gen == 6 && at && !c->link.flit_mode) {
    ytree_error (error, PS_ERROR_DATA, at, "link.flit_mode is false at Gen6: 64 GT/s runs flit mode only (spec "
                 "§4.2.3.3); leave the key out or choose link.gen 1..5");
    return FALSE;
  }
  /* The central memory must hold one max-size TLP of each kind it takes, or that TLP could never enter; and
   * it is only there with switch.buffer: shared. */
  static const char *const pool_keys[] = { "switch.pool.ph", "switch.pool.pd", "switch.pool.nph", "switch.pool.npd",
                                           NULL };
  for (const char *const *k = pool_keys; *k; k++) {
    const YNode *given = g_hash_table_lookup (w->seen, *k);
    if (given && c->sw.buffer == 0) {
      ytree_error (error, PS_ERROR_DATA, given, "%s is only used with switch.buffer: shared (the switch here has "
                   "per-port buffers, switch.rx_credits)", *k);
      return FALSE;
    }
  }
  if (c->sw.pool.pd != 0 && c->sw.pool.pd < c->link.max_payload / 16) {
    at = g_hash_table_lookup (w->seen, "switch.pool.pd");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "switch.pool.pd (%" G_GINT64_FORMAT ") holds less than one "
                 "max-payload TLP (link.max_payload %" G_GINT64_FORMAT " bytes = %" G_GINT64_FORMAT " credits): no "
                 "such write could ever enter the switch", c->sw.pool.pd, c->link.max_payload,
                 c->link.max_payload / 16);
    return FALSE;
  }
  gboolean flit = c->link.gen == 6 || c->link.flit_mode;
  if (flit && (c->link.lanes == 12 || c->link.lanes == 32)) {
    at = g_hash_table_lookup (w->seen, "link.lanes");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "link.lanes x%" G_GINT64_FORMAT " is not defined in flit mode "
                "(Gen6 or link.flit_mode; x1..x16, spec §4.2.3.3)", c->link.lanes);
    return FALSE;
  }
  /* More than 256 tags need 10-bit tags (spec §2.2.6.2), which arrived with the 16 GT/s revision (r4.0): a
   * requester that supports 16 GT/s (link.gen or link.supported_gen 4+), or flit mode. */
  if (c->endpoint.tags > 256 && MAX (c->link.gen, c->link.supported_gen) < 4 && !flit) {
    at = given_node (w, root, (const char *const[]) { "endpoint.tags", "link.gen", NULL });
    ytree_error (error, PS_ERROR_DATA, at, "endpoint.tags %" G_GINT64_FORMAT " needs 10-bit tags, which came with "
                 "16 GT/s (spec r4.0, §2.2.6.2): 8-bit tags allow 256; a device that supports 16 GT/s gives "
                 "link.supported_gen", c->endpoint.tags);
    return FALSE;
  }
  /* 10-bit tags (768, spec §2.2.6.2) work with the DMA; more need flit mode's 14-bit tags, which only the stream
   * source uses (the chaining DMA's tag table holds 10-bit tags, dma_chain.h). */
  if (c->endpoint.tags > LINK_TAGS_10BIT && (!flit || c->benchmark.workload != PS_WORKLOAD_STREAM)) {
    at = g_hash_table_lookup (w->seen, "endpoint.tags");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "endpoint.tags %" G_GINT64_FORMAT " needs 14-bit tags: flit "
                "mode (Gen6 or link.flit_mode) and the stream workload (the chaining DMA keeps 10-bit tags, 768 "
                "at most)", c->endpoint.tags);
    return FALSE;
  }
  return TRUE;
}

/* The root complex's completion sizes and its CPU path, and the random times. */
static gboolean
check_host_rules (Walk *w, const YNode *root, GError **error)
{
  PsConfig *c = w->cfg;
  const YNode *at;
  /* The spec's rule first (§2.3.1.1: a completer splits a read only at RCB boundaries, and no completion exceeds
   * Max_Payload_Size), then the model's narrower one. */
  int64_t cb = c->host.completion_bytes;
  if (cb != 0 && (cb > c->link.max_payload || cb % c->link.read_completion_boundary != 0)) {
    at = g_hash_table_lookup (w->seen, "host.completion_bytes");
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "host.completion_bytes (%" G_GINT64_FORMAT ") must be a multiple of the read completion boundary "
                 "(%" G_GINT64_FORMAT ") and at most max_payload (%" G_GINT64_FORMAT ") (spec §2.3.1.1)",
                 cb, c->link.read_completion_boundary, c->link.max_payload);
    return FALSE;
  }
  /* The completer knows two policies: MPS-sized completions, or one per RCB block; sizes in between would need a
   * third, so they are refused rather than approximated. */
  if (cb != 0 && cb != c->link.max_payload && cb != c->link.read_completion_boundary) {
    at = g_hash_table_lookup (w->seen, "host.completion_bytes");
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "host.completion_bytes (%" G_GINT64_FORMAT ") must be 0 (up to max_payload), the read completion "
                 "boundary (%" G_GINT64_FORMAT ") or max_payload (%" G_GINT64_FORMAT "); other chunk sizes are not "
                 "modelled", cb, c->link.read_completion_boundary, c->link.max_payload);
    return FALSE;
  }
  int64_t fb = c->host.completion_full_block_bytes;
  if (fb != 0 && fb < c->link.read_completion_boundary) {
    at = g_hash_table_lookup (w->seen, "host.completion_full_block_bytes");
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "host.completion_full_block_bytes (%" G_GINT64_FORMAT ") is smaller than the read completion "
                 "boundary (%" G_GINT64_FORMAT "): a block is whole lines", fb, c->link.read_completion_boundary);
    return FALSE;
  }
  if (c->host.cpu_write_post_ns > c->host.cpu_access_ns) {
    at = g_hash_table_lookup (w->seen, "host.cpu_write_post_ns");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "host.cpu_write_post_ns (%g) is longer than the whole path "
                 "it is part of, host.cpu_access_ns (%g)", c->host.cpu_write_post_ns, c->host.cpu_access_ns);
    return FALSE;
  }
  /* The transaction is the start of the write's way to where it is posted: no longer than that way. */
  double post = c->host.cpu_write_queue_tlps > 0 ? c->host.cpu_write_post_ns : c->host.cpu_access_ns;
  if (c->host.cpu_write_transaction_ns > post) {
    at = g_hash_table_lookup (w->seen, "host.cpu_write_transaction_ns");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "host.cpu_write_transaction_ns (%g) is longer than the way "
                 "of a write it is part of, %s (%g)", c->host.cpu_write_transaction_ns,
                 c->host.cpu_write_queue_tlps > 0 ? "host.cpu_write_post_ns" : "host.cpu_access_ns", post);
    return FALSE;
  }
  if (!check_dist (w, root, "cpu.interrupt", &c->cpu.interrupt, error)
      || !check_dist (w, root, "cpu.wakeup", &c->cpu.wakeup, error))
    return FALSE;
  return TRUE;
}

/* A microbenchmark's DMA within the direct command path and within its window. */
static gboolean
check_microbench (Walk *w, const YNode *root, GError **error)
{
  PsConfig *c = w->cfg;
  const YNode *at;
  if (c->benchmark.workload == PS_WORKLOAD_MICROBENCH && c->microbench.test >= PS_MB_LAT_CMD_RD
      && c->microbench.transfer_bytes > 64) {
    at = given_node (w, root, (const char *const[]) { "microbench.transfer_bytes", "microbench.test", NULL });
    ytree_error (error, PS_ERROR_DATA, at, "microbench.transfer_bytes (%" G_GINT64_FORMAT ") is above 64: %s uses "
                 "the device's direct command path, which moves at most 64 bytes", c->microbench.transfer_bytes,
                 ps_microbench_test_words[c->microbench.test]);
    return FALSE;
  }
  /* A DMA's slot: its host offset and bytes, rounded up to whole 64-byte cache lines (pcie-bench's layout). */
  int64_t slot = (c->microbench.host_offset + c->microbench.transfer_bytes + 63) / 64 * 64;
  if (c->benchmark.workload == PS_WORKLOAD_MICROBENCH && slot > c->microbench.window_bytes) {
    at = given_node (w, root, (const char *const[]) { "microbench.window_bytes", "microbench.transfer_bytes", NULL });
    ytree_error (error, PS_ERROR_DATA, at, "microbench.window_bytes (%" G_GINT64_FORMAT ") is smaller than "
                 "microbench.transfer_bytes (%" G_GINT64_FORMAT ") after microbench.host_offset (%" G_GINT64_FORMAT
                 ") in whole 64-byte lines (%" G_GINT64_FORMAT "): each DMA lies inside the window",
                 c->microbench.window_bytes, c->microbench.transfer_bytes, c->microbench.host_offset, slot);
    return FALSE;
  }
  return TRUE;
}

/* Checks that need several keys; each points at the node whose value makes the combination impossible.
 * They run once every value is converted, since the keys involved may come from different files, a --set or
 * the table. A value left at its default has no node (`at` is NULL): the error then points at the config's 1:1. */
gboolean
cfg_check_combinations (Walk *w, const YNode *root, GError **error)
{
  PsConfig *c = w->cfg;
  const YNode *at;
  /* Refused here rather than left to the run, which could only stall until the deadlock watchdog fired. */
  if (c->endpoint.completion_buffer_bytes != 0 && c->endpoint.completion_buffer_bytes < c->link.max_read_request) {
    at = g_hash_table_lookup (w->seen, "endpoint.completion_buffer_bytes");
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "endpoint.completion_buffer_bytes (%" G_GINT64_FORMAT ") is smaller than one read request "
                 "(link.max_read_request %" G_GINT64_FORMAT "): no read could ever be issued",
                 c->endpoint.completion_buffer_bytes, c->link.max_read_request);
    return FALSE;
  }
  return check_published (w, root, error) && check_credit_rules (w, root, error) && check_pipelines (w, root, error)
         && check_flit_tags_pools (w, root, error) && check_host_rules (w, root, error)
         && check_microbench (w, root, error) && check_dma (w, root, error);
}

/* A datapath half not given follows the link (config.h): the table's fixed 64 bits at 125 MHz ran a Gen4 x16
 * link at 3% of its rate. The table's own defaults stay as the values `pciesim keys` shows for Gen1 x1. */
void
cfg_apply_datapath_default (PsConfig *cfg)
{
  PsKeyOrigin *ob = &cfg->origins[cfg_find_key ("endpoint.datapath_bits") - cfg_keys];
  PsKeyOrigin *oc = &cfg->origins[cfg_find_key ("endpoint.clock_mhz") - cfg_keys];
  if (ob->from != PS_FROM_DEFAULT && oc->from != PS_FROM_DEFAULT)
    return;
  int64_t bits = ob->from == PS_FROM_DEFAULT ? 0 : cfg->endpoint.datapath_bits;
  double mhz = oc->from == PS_FROM_DEFAULT ? 0 : cfg->endpoint.clock_mhz;
  char *rule = hardip_datapath_default (cfg->link.gen, cfg->link.lanes, &bits, &mhz);
  cfg->endpoint.datapath_bits = bits;
  cfg->endpoint.clock_mhz = mhz;
  if (ob->from == PS_FROM_DEFAULT)
    ob->rule = g_strdup (rule);
  if (oc->from == PS_FROM_DEFAULT)
    oc->rule = g_strdup (rule);
  g_free (rule);
}

/* switch.dll_latency_ns's default is an assumption (config_keys.c): one the user did not set follows the switch
 * latency the user gave, at most all of it, rather than refuse it (a sweep of switch.latency_ns down to 0 must not
 * fail at its low end for a value nobody wrote). Only values the user set can contradict each other
 * (cfg_check_combinations()). */
void
cfg_apply_switch_dll_default (PsConfig *cfg)
{
  PsKeyOrigin *o = &cfg->origins[cfg_find_key ("switch.dll_latency_ns") - cfg_keys];
  if (o->from != PS_FROM_DEFAULT || cfg->sw.dll_latency_ns <= cfg->sw.latency_ns)
    return;
  cfg->sw.dll_latency_ns = cfg->sw.latency_ns;
  o->rule = g_strdup ("the assumed 50 ns, at most switch.latency_ns, of which it is a part");
}

/* A located error at the value of key `path`, found through its recorded origin (FILE:LINE:COL, or the --set
 * that gave it at 1:1), for checks that run after the walk; the file's 1:1 for a default. */
static void G_GNUC_PRINTF (4, 5)
error_at_key (GError **error, const PsConfig *cfg, const char *path, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  const PsKeyOrigin *o = ps_config_origin (cfg, path);
  if (o && o->file)
    ps_error_located (error, PS_ERROR_DATA, o->file, o->line, o->col, "%s", msg);
  else
    ps_error_located (error, PS_ERROR_DATA, cfg->path, 1, 1, "%s", msg);
}

/* Keys that only a fabric's parts read, given to a config that lacks those parts: they would change nothing. */
gboolean
ps_config_check_fabric_keys (const PsConfig *cfg, guint switches, guint n_flows, GError **error)
{
  const PsTopology *t = cfg->topology;
  for (size_t i = 0; i < cfg_n_keys; i++) {
    if (cfg_origin_of (cfg, i)->from == PS_FROM_DEFAULT)
      continue;
    if (g_str_has_prefix (cfg_keys[i].path, "switch.") && !switches) {
      error_at_key (error, cfg, cfg_keys[i].path, "%s is set, but this config has no switch (a topology: node of type "
                    "switch): it would change nothing", cfg_keys[i].path);
      return FALSE;
    }
    if (g_str_has_prefix (cfg_keys[i].path, "fabric.") && !t) {
      error_at_key (error, cfg, cfg_keys[i].path, "%s is set, but this config has no topology: it would change "
                    "nothing", cfg_keys[i].path);
      return FALSE;
    }
  }
  if (t && cfg->fabric.active_flows > (int64_t) n_flows) {
    error_at_key (error, cfg, "fabric.active_flows", "fabric.active_flows (%" G_GINT64_FORMAT ") is more than the "
                  "%u flows this config has", cfg->fabric.active_flows, n_flows);
    return FALSE;
  }
  return TRUE;
}
