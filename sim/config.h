/* config.h — a run's configuration: YAML files (with includes) and --set overrides -> one typed PsConfig.
 *
 * Contract:
 * - Every accepted key is listed once in the key table (config.c): its type, range or allowed values, default,
 *   unit and source. Keys not in the table are errors with a did-you-mean suggestion; so are duplicates,
 *   wrong types, out-of-range and spec-forbidden values, and inconsistent combinations. Each error is located
 *   (FILE:LINE:COL, or the --set that caused it) and carries PS_ERROR_DATA; a missing file PS_ERROR_NOINPUT;
 *   a malformed --set PS_ERROR_USAGE. An error located in a --set says which one (ps_error_set_index()).
 * - `include:` (a path or a list, relative to the including file) loads those files first, in order; this
 *   file's keys then override them, mappings merged key by key. Include cycles are errors.
 * - --set KEY.PATH=VALUE overrides are applied after all files; VALUE is parsed as YAML (so lists work).
 * - The `published:` block is carried for comparison only: model code must never read it.
 * - Keys are an interface: later versions add keys, never rename them.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum {
  PS_MODE_READ = 1 << 0,
  PS_MODE_WRITE = 1 << 1,
  PS_MODE_SIMULTANEOUS = 1 << 2,
  PS_MODE_ALL = 7,
} PsModeMask;

typedef enum { PS_ARB_ROUND_ROBIN, PS_ARB_PRIORITY, PS_ARB_READ_PRIORITY } PsArbitration;
typedef enum { PS_COUNTER_AT_ENDPOINT, PS_COUNTER_AT_HOST } PsCounterStart;
typedef enum { PS_DESCRIPTORS_CHAINED, PS_DESCRIPTORS_SOFTWARE } PsDescriptorMode;
typedef enum { PS_WORKLOAD_CHAINING_DMA, PS_WORKLOAD_STREAM } PsWorkload;
typedef enum { PS_UPDATEFC_MINIMUM, PS_UPDATEFC_RECOMMENDED } PsUpdateFcPolicy;

/* Credits one receiver advertises; 0 = infinite (the InitFC encoding, spec §3.4.2). */
typedef struct {
  int64_t ph, pd, nph, npd, cplh, cpld;
} PsCredits;

typedef struct {
  char *path; /* the config file as named on the command line */
  char *name;

  struct {
    int64_t gen, lanes;
    int64_t max_payload, max_read_request, read_completion_boundary;
    bool ecrc;
    int64_t address_bits;
    double tx_pipeline_ns, rx_pipeline_ns, flight_ns;
    int64_t replay_buffer_bytes;
    int64_t tx_queue_tlps;
    double updatefc_period_ns;
    int updatefc_policy; /* PsUpdateFcPolicy */
    int64_t updatefc_latency_symbols;
    int64_t updatefc_hdr_threshold_credits, updatefc_data_threshold_credits;
    int64_t skp_interval_symbols;
    bool flit_mode, sris;
    double ber, retrain_ns;
    int64_t replay_timer_symbols;
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
    int64_t arb_switch_cycles;
    int64_t ack_every_tlps;
    int arbitration; /* PsArbitration */
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
    int64_t completion_bytes; /* 0 = up to MPS; else the chunk size the root complex returns */
    double completion_mbps; /* 0 = unlimited */
    double completion_overhead_ns;
    int64_t read_queue_depth;
    int64_t ack_every_tlps;
    double write_drain_mbps; /* 0 = unlimited */
    double write_latency_ns;
    double pio_latency_ns;
    double pio_gap_ns;
    double msi_latency_ns;
    double poll_interval_ns;
    double iteration_gap_ns;
  } host;

  struct {
    int64_t transfer_bytes;
    int64_t iterations;
    unsigned modes; /* PsModeMask */
    int workload; /* PsWorkload */
    double watchdog_ns; /* deadlock watchdog bound */
    int64_t stream_payload_bytes; /* 0 = MPS / MRRS */
  } benchmark;

  struct {
    bool present;
    char *source;
    /* NaN when absent */
    double dma_read_mbps, dma_write_mbps, simultaneous_read_mbps, simultaneous_write_mbps, theoretical_mbps;
  } published;
} PsConfig;

PsConfig *ps_config_load (const char *path, const char *const *sets, GError **error);
void ps_config_free (PsConfig *config);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PsConfig, ps_config_free)

/* Parse a mode word ("read", "write", "simultaneous", "all"); 0 if unknown. */
unsigned ps_mode_parse (const char *word);
const char *ps_mode_name (unsigned single_mode);

/* Print every key: path, type, default, unit, meaning and source (the `pciesim keys` command). */
void ps_config_print_keys (GString *out, gboolean markdown);
/* TRUE if `path` is a known key (used by scenario axes). */
gboolean ps_config_key_exists (const char *path);
/* TRUE if `path` is a section: a proper prefix of some key, ending at a dot ("link", "host.rx_credits"). */
gboolean ps_config_is_section (const char *path);
/* Every key path in table order (the order of `pciesim keys`), NULL-terminated, static storage. */
const char *const *ps_config_keys (void);
