/* config.h — a run's configuration: YAML files (with includes) and --set overrides -> one typed PsConfig.
 *
 * Contract:
 * - Every accepted key is listed once in the key table (config_keys.c): its type, range or allowed values, default,
 *   unit and source. Keys not in the table are errors with a did-you-mean suggestion; so are duplicates,
 *   wrong types, out-of-range and spec-forbidden values, and inconsistent combinations. Each error is located
 *   (FILE:LINE:COL, or the --set that caused it) and carries PS_ERROR_DATA; a missing file PS_ERROR_NOINPUT;
 *   a malformed --set PS_ERROR_USAGE. An error located in a --set says which one (ps_error_set_index()).
 * - `include:` (a path or a list, relative to the including file) loads those files first, in order; this
 *   file's keys then override them, mappings merged key by key. Include cycles are errors.
 * - --set KEY.PATH=VALUE overrides are applied after all files; VALUE is parsed as YAML (so lists work).
 * - The `published:` block is carried for comparison only: model code must never read it.
 * - Every key's origin is kept (PsKeyOrigin): the file, include or --set that gave it, or the default it took, so
 *   a report can say what was run (ps_config_write_json()), whether a --set changed what a published figure
 *   measured (ps_config_set_changes()), and which values nobody gave.
 * - endpoint.datapath_bits and endpoint.clock_mhz, when not given, follow the link: the hard IP's application
 *   interface for that generation and width (hardip_datapath_default() in models/devices/hardip.h, pcie-protocol.md §7).
 * - Keys are an interface: later versions add keys, never rename them.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "app/base/format.h"

/* "all" is the three DMA modes, as it always was; the PIO modes (issue #14) are named one by one. */
typedef enum {
  PS_MODE_READ = 1 << 0,
  PS_MODE_WRITE = 1 << 1,
  PS_MODE_SIMULTANEOUS = 1 << 2,
  PS_MODE_ALL = 7,
  PS_MODE_PIO_READ = 1 << 3,
  PS_MODE_PIO_WRITE = 1 << 4,
} PsModeMask;

typedef enum { PS_ARB_ROUND_ROBIN, PS_ARB_PRIORITY, PS_ARB_READ_PRIORITY } PsArbitration;
typedef enum { PS_COUNTER_AT_ENDPOINT, PS_COUNTER_AT_HOST } PsCounterStart;
typedef enum { PS_DESCRIPTORS_CHAINED, PS_DESCRIPTORS_SOFTWARE } PsDescriptorMode;
typedef enum { PS_WORKLOAD_CHAINING_DMA, PS_WORKLOAD_STREAM, PS_WORKLOAD_MICROBENCH } PsWorkload;
/* microbench.test: pcie-bench's tests (pcie-protocol.md §11), in ps_microbench_test_words order. */
typedef enum {
  PS_MB_LAT_RD, PS_MB_LAT_WRRD, PS_MB_BW_RD, PS_MB_BW_WR, PS_MB_BW_RDWR, PS_MB_LAT_CMD_RD, PS_MB_LAT_CMD_WRRD
} PsMicrobenchTest;
/* microbench.cache: pcie-bench's HWarm, Cold, DWarm, DThrash, in cache_words order. */
typedef enum { PS_MB_WARM, PS_MB_COLD, PS_MB_DEVICE_WARM, PS_MB_DEVICE_THRASH } PsMicrobenchCache;
/* host.numa.warm_cache, in its words' order. */
typedef enum { PS_NUMA_CACHE_BUFFER, PS_NUMA_CACHE_DEVICE, PS_NUMA_CACHE_OTHER } PsNumaWarmCache;
typedef enum { PS_UPDATEFC_MINIMUM, PS_UPDATEFC_RECOMMENDED } PsUpdateFcPolicy;
typedef enum { PS_SWITCH_UPDATEFC_LINK, PS_SWITCH_UPDATEFC_MINIMUM, PS_SWITCH_UPDATEFC_RECOMMENDED } PsSwitchUpdateFc;
typedef enum { PS_MAPPING_WC, PS_MAPPING_UC } PsMapping;
typedef enum { PS_DIST_FIXED, PS_DIST_UNIFORM, PS_DIST_LOGNORMAL, PS_DIST_EMPIRICAL } PsDistKind;

/* A table of (value, cumulative probability) pairs: pairs[2 i] and pairs[2 i + 1]; n = 0 is no table. */
typedef struct {
  guint n;
  double *pairs;
} PsPoints;

/* A random time (models/base/dist.h): the kind and the parameters each kind reads, in ns. */
typedef struct {
  int kind; /* PsDistKind */
  double value_ns, min_ns, max_ns, median_ns, p99_ns;
  PsPoints table; /* ns, probability */
} PsDist;
typedef enum { PS_SWITCH_CUT_THROUGH, PS_SWITCH_STORE_AND_FORWARD } PsSwitchForwarding;
typedef enum { PS_SWITCH_ROUND_ROBIN, PS_SWITCH_WEIGHTED_ROUND_ROBIN } PsSwitchArbitration;
typedef enum { PS_SWITCH_BUFFER_PER_PORT, PS_SWITCH_BUFFER_SHARED } PsSwitchBuffer;

/* A config's topology: and flows: sections, parsed and checked (topology.h). */
typedef struct PsTopology PsTopology;
typedef struct YNode YNode;

/* Credits one receiver advertises; 0 = infinite (the InitFC encoding, spec §3.4.2). */
typedef struct {
  int64_t ph, pd, nph, npd, cplh, cpld;
} PsCredits;

/* Where a key's value came from. */
typedef enum {
  PS_FROM_DEFAULT, /* the key table's default, or one that follows other keys (PsKeyOrigin.rule) */
  PS_FROM_FILE, /* the config file named on the command line */
  PS_FROM_INCLUDE, /* a file it includes, directly or not */
  PS_FROM_SET, /* a --set (a sweep's overrides and axis values reach the loader as --sets too) */
  PS_FROM_ABSENT, /* no value: a published.* figure the config does not give */
} PsFrom;

typedef struct {
  PsFrom from;
  char *at; /* FILE:LINE:COL of the value (file, include), the "--set KEY=VALUE" text (set), else NULL */
  char *file; /* `at`'s parts, for a located error: the file or the --set text, NULL with `at` */
  int line, col; /* 1-based; 1:1 for a --set */
  char *rule; /* a default that follows other keys: what it follows and the source; else NULL */
} PsKeyOrigin;

/* A value nobody measured or documented (an ASSUMPTION in its file's comment) with the range that is physically
 * plausible for that kind of part: a file's `assumptions:` section, KEY: [LO, HI] (docs/trust.md, "Assumptions as
 * data"). The range belongs to the file that sets the value: merged through includes as keys are (a later
 * file's range replaces an earlier one), dropped when a later file or a --set gives the key a value without one. */
typedef struct {
  char *key; /* a numeric key of the table; in a fabric, nodes.NAME.KEY for a node's own (load.h) */
  double lo, hi; /* lo < hi, within the key's own bounds, containing the value */
  char *at; /* FILE:LINE:COL of the range */
  double value; /* the key's value in the config (for nodes.NAME.KEY, the node's) */
} PsAssumption;

typedef struct {
  char *path; /* the config file as named on the command line */
  char *name;

  struct {
    int64_t gen, lanes;
    int64_t max_payload, max_read_request, read_completion_boundary;
    bool ecrc;
    int64_t address_bits;
    double tx_pipeline_ns, rx_pipeline_ns, flight_ns;
    double rx_transaction_ns; /* of rx_pipeline_ns, the part after the data link layer: TLPs only */
    int64_t replay_buffer_bytes;
    int64_t tx_queue_tlps;
    double updatefc_period_ns;
    int updatefc_policy; /* PsUpdateFcPolicy */
    int64_t updatefc_latency_symbols;
    int64_t updatefc_hdr_threshold_credits, updatefc_data_threshold_credits;
    int64_t skp_interval_symbols;
    bool flit_mode, sris, flit_selective_nak;
    double ber, retrain_ns, flit_lane_correlation;
    int64_t replay_timer_symbols;
    int64_t supported_gen; /* the highest rate the link's ports support, as a generation; 0 = link.gen */
  } link;

  struct {
    int64_t tags;
    int64_t datapath_bits;
    double clock_mhz;
    bool soft_ip;
    PsCredits rx_credits;
    int64_t completion_buffer_bytes;
    int64_t completion_buffer_headers;
    bool straddle;
    bool header_own_beat;
    int64_t tx_gap_cycles;
    int64_t rx_overhead_cycles;
    int64_t rx_overhead_bytes;
    int64_t arb_switch_cycles;
    int64_t ack_every_tlps;
    int arbitration; /* PsArbitration */
    int64_t bar_read_latency_cycles;
    double memory_read_latency_ns; /* a fabric's memory target: MRd taken in -> data ready */
    int64_t dma_issue_cycles; /* microbench: cycles between DMA command starts; 0 = no limit */
    double dma_write_gap_ns; /* microbench: time between a DMA engine's MWrs; 0 = no limit */
    double dma_write_switch_ns; /* microbench: more before a DMA's first MWr after another DMA's */
    int64_t dma_write_max_bytes; /* microbench: the engine's largest MWr; 0 = MPS */
    double dma_overhead_ns; /* microbench: the engine's own time per DMA, outside the PCIe core */
    double dma_write_extra_ns; /* microbench: a write DMA's own time beyond dma_overhead_ns */
    double dma_ps_per_byte; /* microbench: the same, per byte (moving it to or from the device's memory) */
    double dma_read_partial_ns; /* microbench: more issue time for a read DMA that ends inside an 8-byte word */
  } endpoint;

  struct {
    int64_t desc_max_bytes;
    int64_t desc_per_fetch;
    int64_t desc_fifo_entries;
    int64_t desc_setup_cycles;
    bool msi;
    int counter_start; /* PsCounterStart */
    int64_t channels;
    int descriptor_mode; /* PsDescriptorMode */
  } dma;

  struct {
    PsCredits rx_credits;
    double read_latency_ns; /* fixed part of the MRd -> first CplD latency */
    double read_latency_ps_per_byte; /* size-dependent part */
    double cold_cache_latency_ns; /* microbench.cache cold: added to read_latency_ns (data from DRAM, not the LLC) */
    int64_t llc_bytes; /* last-level cache a warmed window can stay in; 0 = any window fits */
    int64_t completion_bytes; /* 0 = up to MPS; else the chunk size the root complex returns */
    int64_t completion_full_block_bytes; /* a read covering an aligned block this large: MPS-sized completions */
    double completion_mbps; /* 0 = unlimited */
    double completion_overhead_ns;
    double completion_fence_ns;
    int64_t completion_group_tlps; /* completions per return-path overhead, of one read */
    int64_t read_queue_depth;
    int64_t completion_queue_tlps; /* completions of the reads taken in and not yet answered; 0 = unlimited */
    bool completions_in_order; /* the return path serves reads in arrival order, not the first ready first */
    struct {
      bool enabled;
      int64_t iotlb_entries, page_bytes;
      double walk_ns; /* per IOTLB miss */
      double read_resume_ns; /* a read that waited for a walk: from the translation to its start */
      double read_resume_group_ns; /* and this much more per group of its completions after the first */
      int64_t walks_in_flight; /* page walkers */
    } iommu;
    struct {
      bool buffer_remote; /* the DMA buffer is in the other socket's memory */
      double remote_ns; /* what reaching it adds to a read's latency and a posted write's slot time */
      int warm_cache; /* PsNumaWarmCache: the socket whose LLC holds a warm window's lines */
    } numa;
    int64_t ack_every_tlps;
    double write_drain_mbps; /* 0 = unlimited */
    double write_latency_ns;
    int64_t write_block_bytes; /* 0 = off */
    double write_partial_block_ns; /* per run edge inside such a block */
    double pio_latency_ns;
    double pio_gap_ns;
    double msi_latency_ns;
    double poll_interval_ns;
    double iteration_gap_ns;
    double cpu_access_ns; /* core <-> root port, each way, for uncached accesses */
    int64_t cpu_write_queue_tlps; /* the root complex's posted-write queue for the CPU's writes; 0 = none */
    double cpu_write_post_ns; /* of cpu_access_ns, a write's part before that queue takes it */
    double cpu_write_transaction_ns; /* the bus's time per CPU write transaction (shared by the cores); 0 = none */
  } host;

  /* A fabric's switches (topology.h): every switch node's, unless the node overrides them. */
  struct {
    int forwarding; /* PsSwitchForwarding */
    double latency_ns;
    double dll_latency_ns; /* a port's receive PHY and data link layer: DLLPs' pins -> acted on; in latency_ns */
    int updatefc_policy; /* PsSwitchUpdateFc */
    int arbitration; /* PsSwitchArbitration */
    int buffer; /* PsSwitchBuffer */
    PsCredits rx_credits, pool;
  } sw;

  struct {
    int64_t active_flows; /* run the first N flows; 0 = all */
  } fabric;

  struct {
    int64_t wc_buffers, wc_buffer_bytes;
    double store_ns;
    int pio_write_mapping; /* PsMapping */
    int64_t store_bytes, load_bytes;
    double transfer_overhead_ns;
    double dma_setup_ns, dma_descriptor_ns;
    PsDist interrupt, wakeup;
  } cpu;

  struct {
    int64_t transfer_bytes;
    int64_t iterations;
    unsigned modes; /* PsModeMask */
    int workload; /* PsWorkload */
    double watchdog_ns; /* deadlock watchdog bound */
    int64_t stream_payload_bytes; /* 0 = MPS / MRRS */
  } benchmark;

  struct {
    int test; /* PsMicrobenchTest */
    int64_t transfer_bytes, window_bytes, outstanding, dmas;
    int offsets; /* 0 sequential, 1 random */
    int cache; /* PsMicrobenchCache */
    int64_t host_offset; /* bytes from a 64-byte cache line (pcie-bench's HO) */
    int64_t device_offset; /* bytes from a 64-byte boundary of the device's memory (pcie-bench's DO) */
  } microbench;

  struct {
    bool present;
    char *source;
    /* NaN when absent */
    double dma_read_mbps, dma_write_mbps, simultaneous_read_mbps, simultaneous_write_mbps, theoretical_mbps;
    /* A logic analyser's steady-state figures of the interface (published-calibration.md §2.1); NaN when absent */
    double peak_write_mbps, peak_write_excluding_read_requests_mbps, peak_read_mbps;
    /* Figures marked as suspect measurements: bit i is figure i of ps_figure_words (report.h order); 0 = none */
    unsigned suspect_figures;
    char *suspect_reason; /* why; required when suspect_figures is set */
    /* Figures whose known deviation the project accepts (bit i as above): each compared with accepted_tolerance_pct
     * instead of validate's default, for accepted_reason; 0 = none, the tolerance NaN when absent */
    unsigned accepted_figures;
    double accepted_tolerance_pct;
    char *accepted_reason;
  } published;

  PsKeyOrigin *origins; /* one per key, in ps_config_keys() order */
  char *set_changes; /* ps_config_set_changes() */

  /* A fabric (a topology: section), else NULL. The file's merged tree before --sets, without topology: and flows:,
   * and the --sets, are kept to derive each node's and link's own config (ps_config_derive()). */
  PsTopology *topology;
  void (*topology_free) (PsTopology *topology); /* how ps_config_free() frees it: set by whoever attached it */
  YNode *tree;
  char **sets;

  PsAssumption *assumptions; /* in the order the files give them */
  guint n_assumptions;
} PsConfig;

/* The keys of a config file (ps_config_load() in load.h composes them with its fabric): includes, the --sets, the
 * walk and the checks of one config. A topology: and a flows: section are handed back unparsed in *topology and
 * *flows (owned by the caller, NULL when absent); with a topology: the file's tree and --sets are kept for
 * ps_config_derive(). The error is not yet marked with its --set (ps_config_mark_set()). */
PsConfig *ps_config_load_keys (const char *path, const char *const *sets, YNode **topology, YNode **flows,
                               GError **error);
/* The last check of a load, once the fabric (if any) is attached: keys only a fabric's parts read (switch.*,
 * fabric.*) set in a config without those parts, or more active flows than `n_flows`. */
gboolean ps_config_check_fabric_keys (const PsConfig *cfg, guint n_switches, guint n_flows, GError **error);
/* Record in a failed load's error which of `sets` it is located in (error.h), for callers that gave the --sets
 * and want the error on the line that made one (scenario.c). */
void ps_config_mark_set (GError **error, const char *const *sets);
void ps_config_free (PsConfig *config);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PsConfig, ps_config_free)
/* A fabric node's or link's own config: `base`'s file with `overlay` (a mapping of config sections, with an
 * optional include: of its own, resolved from the file the overlay is written in) merged over it, then `base`'s
 * --sets, checked as a whole config is. Errors are located at the overlay's values where they are the cause. No
 * topology of its own. */
/* A key only a fabric uses (switch.*, fabric.*, a memory target's latency): a one-link config's reports leave it
 * out while it has its default, so they read as before fabrics existed. */
gboolean ps_config_key_fabric_only (const char *path);
/* A key of a mechanism that is off at its default (the IOMMU, a device's DMA engine's costs, the LLC's size, a
 * host offset; docs/host-model.md): every
 * config's reports leave it out while it has its default, so they read as before it existed. */
gboolean ps_config_key_off_by_default (const char *path);
PsConfig *ps_config_derive (const PsConfig *base, const YNode *overlay, GError **error);

/* The comparable figures' keys, in the order of ps_result_figures() (report.h), NULL-terminated: the words of
 * published.suspect.figures. */
extern const char *const ps_figure_words[];
extern const char *const ps_microbench_test_words[]; /* PsMicrobenchTest order, NULL-terminated */

/* Parse a mode word ("read", "write", "simultaneous", "all", "pio_read", "pio_write"); 0 if unknown. */
unsigned ps_mode_parse (const char *word);
const char *ps_mode_name (unsigned single_mode);

/* A numeric key's value as a double, a boolean's as 0 or 1 (NaN for any other key). */
double ps_config_number (const PsConfig *cfg, const char *path);
/* TRUE if `path` is a numeric key (integer or number); a range may be given for one, or for a boolean. */
gboolean ps_config_key_numeric (const char *path);
/* TRUE if `path` is an integer key (so a range's samples are rounded, a fit keeps it whole); a boolean is one,
 * 0 or 1, and its range is [false, true]. */
gboolean ps_config_key_integer (const char *path);
/* TRUE if `path` is a boolean key: its range's ends and its --set are written false and true. */
gboolean ps_config_key_boolean (const char *path);
/* Value `v` of key `path` as a report prints it: a boolean's word, any other number as %g. */
char *ps_config_number_text (const char *path, double v);
/* The value of key `path` nearest to `v` that the key accepts: an integer key rounds (to a power of two, or to
 * its list of allowed values, when it has one), a boolean to 0 or 1. Doubles are returned as they are. */
double ps_config_snap (const char *path, double v);
/* "KEY=VALUE" for a --set giving numeric key `path` the value `v` (snapped), written so it reads back exactly. */
char *ps_config_set_text (const char *path, double v);
/* A default that is an ASSUMPTION has its range in the key table: TRUE and the range for such a key. */
gboolean ps_config_default_range (const char *path, double *lo, double *hi);
/* The ranges of the defaults `cfg` keeps (ps_config_default_range()) added to its assumptions, a switch.* key's
 * only when the config has `switches` > 0 (a config without a switch never reads it). */
void ps_config_assume_defaults (PsConfig *cfg, guint switches);
/* The ranges shipped files give (`pciesim keys`): every config file below `dir` (itself, hosts/, families/,
 * benchmarks/) that has an assumptions: section, as "FILE: [LO, HI]" strings per key (a hash of key -> GPtrArray
 * of char *), read from each file alone. Files that fail to parse are skipped: `keys` lists, validate checks. */
GHashTable *ps_config_shipped_ranges (const char *dir);

/* Print every key: path, type, default, unit, meaning and source (the `pciesim keys` command). */
void ps_config_print_keys (GString *out, gboolean markdown, GHashTable *ranges);
/* TRUE if the --set KEY=VALUE `set` addresses one element of a fabric: nodes.NAME.KEY, links.NAME.KEY or
 * flows.NAME.KEY (a node's keys, a link entry's, a flow's fields), applied to that element alone. */
gboolean ps_config_is_element_set (const char *set);
/* TRUE if `path` is a known key (used by scenario axes). */
gboolean ps_config_key_exists (const char *path);
/* TRUE if `path` is a section: a proper prefix of some key, ending at a dot ("link", "host.rx_credits"). */
gboolean ps_config_is_section (const char *path);
/* Every key path in table order (the order of `pciesim keys`), NULL-terminated, static storage. */
const char *const *ps_config_keys (void);

/* The origin of key `path` in a loaded config; NULL for a path that is no key. */
const PsKeyOrigin *ps_config_origin (const PsConfig *cfg, const char *path);
/* "default", "file", "include", "set", "absent": the words of the JSON report's config block. */
const char *ps_from_name (PsFrom from);
/* TRUE for keys that change nothing simulated: the report's label (name), which modes run, the watchdog bound,
 * and the published figures themselves. Every other key changes what a run measures. */
gboolean ps_config_key_is_output (const char *path);
/* The keys a --set gave that change what is simulated, joined by ", " (table order), or NULL when none did:
 * the published figures then describe another system and are not compared (report.h). */
const char *ps_config_set_changes (const PsConfig *cfg);
/* A key's value as the JSON report writes it (42, 2.5, true, "text", ["read", "write"]); NULL for no key. */
char *ps_config_value_text (const PsConfig *cfg, const char *path);
/* Every key as a JSON object member per key, in table order: {"value": V, "from": WORD[, "at": …][, "rule": …]},
 * one key per line at `indent`. */
void ps_config_write_json (const PsConfig *cfg, PsJson *j, int indent);
/* The same as comment lines "# KEY = VALUE (FROM[ AT])", for formats that have no other room (CSV). */
void ps_config_write_comments (const PsConfig *cfg, GString *out);
