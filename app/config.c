/* config.c — the key table, include resolution, --set overrides and typed conversion.
 *
 * Loading is three passes over one located tree: (1) read the file and its includes, merging them;
 * (2) graft --set values into the tree; (3) walk the tree against the key table, converting each value into
 * PsConfig and reporting the first problem at its node. Defaults come from the table as YAML text and go
 * through the same conversion, so a default can never be a value the file itself could not give. A topology:
 * and flows: section are taken out before the walk and handed to the caller: app/load.c parses them (topology.c),
 * so this file never calls the fabric that derives its nodes' configs from it.
 *
 * Loading stops at the first problem: the user gets one located line (error.h), not a list. Loads run
 * concurrently (validate and sweep workers each load configs), and nothing here keeps mutable static state but
 * the one-time locale setup in set_defaults(). */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "models/hardip.h"
#include "ytree.h"

typedef enum { K_INT, K_DOUBLE, K_BOOL, K_STRING, K_MODES, K_ENUM, K_WORDS, K_POINTS } KeyType;

/* Integer value constraints: a range, optionally only powers of two, or an explicit list. */
typedef struct {
  const char *path;
  KeyType type;
  /* Into PsConfig. The field's C type must be the one convert_value() writes for `type`: int64_t for K_INT,
   * double, bool, char * (owned), unsigned for K_MODES (a PsModeMask), int for K_ENUM, unsigned for K_WORDS (bit i
   * set for words[i]), PsPoints (owned) for K_POINTS. */
  size_t offset;
  /* Bounds of K_INT and K_DOUBLE, doubles for both: exact for integers, since every bound is below 2^53. */
  double min, max;
  gboolean pow2;
  const int64_t *allowed; /* terminated by -1, so no list may hold a negative value */
  const char *const *words; /* K_ENUM, K_WORDS: NULL-terminated names; K_ENUM stores the index, K_WORDS a mask */
  const char *dflt; /* YAML text; NULL = required (or absent for published.*) */
  const char *unit;
  const char *doc; /* meaning and source: one line of `pciesim keys`, also quoted when a required key is missing */
} KeyDef;

/* The table addresses PsConfig fields by offset so one generic converter serves every key; adding a key is one
 * line here plus one field in config.h. */
#define OFF(field) offsetof (PsConfig, field)

/* Value lists the spec allows (x12/x32 only without flit mode: r6 defines flit mode for x1..x16).
 * A K_ENUM stores the index of its word, so each word list must be in the order of its C enum in config.h, or
 * a word would select another value. */
static const int64_t lanes_allowed[] = { 1, 2, 4, 8, 12, 16, 32, -1 };
static const int64_t rcb_allowed[] = { 64, 128, -1 };
static const int64_t addr_allowed[] = { 32, 64, -1 };
static const int64_t width_allowed[] = { 64, 128, 256, 512, 1024, -1 };
static const char *const arbitration_words[] = { "round_robin", "priority", "read_priority", NULL };
static const char *const counter_words[] = { "endpoint", "host", NULL };
static const char *const descriptor_mode_words[] = { "chained", "software", NULL };
static const int64_t channels_allowed[] = { 1, 2, 4, -1 };
static const char *const updatefc_words[] = { "minimum", "recommended", NULL };
static const char *const switch_updatefc_words[] = { "link", "minimum", "recommended", NULL };
static const char *const workload_words[] = { "chaining_dma", "stream", "microbench", NULL };
const char *const ps_microbench_test_words[] = { "lat_rd", "lat_wrrd", "bw_rd", "bw_wr", "bw_rdwr", NULL };
static const char *const offsets_words[] = { "sequential", "random", NULL };
static const char *const cache_words[] = { "warm", "cold", NULL };
static const char *const forwarding_words[] = { "cut_through", "store_and_forward", NULL };
static const char *const switch_arbitration_words[] = { "round_robin", "weighted_round_robin", NULL };
static const char *const buffer_words[] = { "per_port", "shared", NULL };
static const char *const mapping_words[] = { "wc", "uc", NULL };
static const char *const dist_words[] = { "fixed", "uniform", "lognormal", "empirical", NULL };
static const int64_t wc_bytes_allowed[] = { 32, 64, -1 };
static const int64_t access_allowed[] = { 1, 2, 4, 8, 16, 32, -1 };
/* The x86 page sizes an IOMMU maps (VT-d second-level tables: 4 KB, 2 MB, 1 GB). */
static const int64_t page_allowed[] = { 4096, 2097152, 1073741824, -1 };
const char *const ps_figure_words[] = { "read", "write", "simultaneous_read", "simultaneous_write", "peak_write",
                                        "peak_write_excluding_read_requests", "peak_read", NULL };

/* The six credit types appear twice (host and endpoint receivers); the macro keeps their ranges identical.
 * 2032 = 127 x 16 and 32752 = 2047 x 16: the largest unscaled header and data advertisements times the largest
 * scale factor of scaled flow control, 16. Data credits are 16 bytes. */
#define CREDIT_KEYS(prefix, field, who)                                                                        \
  { prefix ".ph", K_INT, OFF (field.ph), 0, 2032, FALSE, NULL, NULL, "0", "credits",                              \
    "posted-header credits " who " advertises; 0 = infinite (spec §3.4.2, Table 2-48 scaled limits)" },      \
  { prefix ".pd", K_INT, OFF (field.pd), 0, 32752, FALSE, NULL, NULL, "0", "credits (16 bytes)",                   \
    "posted-data credits " who " advertises; 0 = infinite; else at least max_payload / 16 (spec §3.4.2)" },   \
  { prefix ".nph", K_INT, OFF (field.nph), 0, 2032, FALSE, NULL, NULL, "0", "credits",                            \
    "non-posted-header credits " who " advertises; 0 = infinite" },                                          \
  { prefix ".npd", K_INT, OFF (field.npd), 0, 32752, FALSE, NULL, NULL, "0", "credits (16 bytes)",                 \
    "non-posted-data credits " who " advertises; 0 = infinite" },                                            \
  { prefix ".cplh", K_INT, OFF (field.cplh), 0, 2032, FALSE, NULL, NULL, "0", "credits",                          \
    "completion-header credits " who " advertises; 0 = infinite (endpoints must, spec §2.6.1)" },            \
  { prefix ".cpld", K_INT, OFF (field.cpld), 0, 32752, FALSE, NULL, NULL, "0", "credits (16 bytes)",               \
    "completion-data credits " who " advertises; 0 = infinite; else at least min(max_payload, "              \
    "max_read_request) / 16 (spec §3.4.2)" }

/* A random time (models/dist.h) of the CPU: its kind and each kind's parameters, in ns; the kind reads only its
 * own. The bound 1e9 ns (1 s) is far beyond any interrupt or wake-up and keeps every draw far inside SimTime. */
#define DIST_KEYS(prefix, field, what)                                                                         \
  { prefix ".kind", K_ENUM, OFF (field.kind), 0, 0, FALSE, NULL, dist_words, "fixed", "",                        \
    what ": fixed (value_ns), uniform (min_ns..max_ns), lognormal (median_ns and p99_ns: the distribution with " \
    "that median and 99th percentile) or empirical (table) (docs/host-software.md)" },                          \
  { prefix ".value_ns", K_DOUBLE, OFF (field.value_ns), 0, 1e9, FALSE, NULL, NULL, "0", "ns",                    \
    "kind fixed: the time, every time" },                                                                       \
  { prefix ".min_ns", K_DOUBLE, OFF (field.min_ns), 0, 1e9, FALSE, NULL, NULL, "0", "ns",                        \
    "kind uniform: the shortest time" },                                                                        \
  { prefix ".max_ns", K_DOUBLE, OFF (field.max_ns), 0, 1e9, FALSE, NULL, NULL, "0", "ns",                        \
    "kind uniform: the longest time (>= min_ns)" },                                                             \
  { prefix ".median_ns", K_DOUBLE, OFF (field.median_ns), 0, 1e9, FALSE, NULL, NULL, "0", "ns",                  \
    "kind lognormal: the median (> 0)" },                                                                       \
  { prefix ".p99_ns", K_DOUBLE, OFF (field.p99_ns), 0, 1e9, FALSE, NULL, NULL, "0", "ns",                        \
    "kind lognormal: the 99th percentile (>= median_ns); the mean follows, e^(mu + sigma^2 / 2)" },             \
  { prefix ".table", K_POINTS, OFF (field.table), 0, 1e9, FALSE, NULL, NULL, "[]", "ns, probability",            \
    "kind empirical: [[value_ns, cumulative probability], ...], both non-decreasing, the last probability 1; "  \
    "linear between points" }

/* The key table: the interface users and scripts depend on. Keys are added, never renamed (design.md).
 * Its order is the order of `pciesim keys` and of the README table generated from it, so keys stay grouped by
 * section. Only link.gen and link.lanes are required: every figure scales with them, so a device file must
 * state them rather than run silently as Gen1 x1. A name of "" (the default) means "the file's base name". */
static const KeyDef keys[] = {
  { "name", K_STRING, OFF (name), 0, 0, FALSE, NULL, NULL, "", "", "label printed in reports (default: file name)" },

  /* Where the spec defines a reset value (max_payload, max_read_request, the RCB) it is the default: it is what
   * a device runs with unless software changes it. */
  { "link.gen", K_INT, OFF (link.gen), 1, 6, FALSE, NULL, NULL, NULL, "generation",
    "PCIe generation: 1..6 = 2.5, 5, 8, 16, 32, 64 GT/s (spec Table 1-1); 6 always runs flit mode" },
  { "link.lanes", K_INT, OFF (link.lanes), 1, 32, FALSE, lanes_allowed, NULL, NULL, "lanes",
    "negotiated link width (spec §4.2.4.9); x12 and x32 only without flit mode" },
  { "link.flit_mode", K_BOOL, OFF (link.flit_mode), 0, 0, FALSE, NULL, NULL, "false", "",
    "flit mode at 2.5-32 GT/s (spec §4.2.3.3, Table 4-1): 256-byte flits of 236 TLP bytes, DLLPs in the flits, no "
    "per-TLP framing; Gen6 runs it whatever this says" },
  { "link.sris", K_BOOL, OFF (link.sris), 0, 0, FALSE, NULL, NULL, "false", "",
    "separate reference clocks (SRIS): SKP ordered sets every 154 symbols at 8b/10b, every 37 blocks at "
    "128b/130b (spec §4.2.8), a tenth of the flit counts in flit mode (assumption)" },
  { "link.ber", K_DOUBLE, OFF (link.ber), 0, 1e-2, FALSE, NULL, NULL, "0", "errors per bit",
    "per-lane bit error rate, per line bit (spec §4.3 requires <= 1e-12 at 2.5-32 GT/s; Gen6 FBER up to 1e-6): "
    "LCRC and DLLP CRC failures, Naks and replays; at 128b/130b framing errors (tokens, IDLs, sync headers) and "
    "their retrains; in flit mode lost flits after FEC (bursty, lane-correlated errors, pcie-protocol.md §10); "
    "0 = no errors" },
  { "link.retrain_ns", K_DOUBLE, OFF (link.retrain_ns), 1, 1e7, FALSE, NULL, NULL, "1000", "ns",
    "link idle while the LTSSM retrains after a REPLAY_NUM rollover (spec §3.6.2.1; no primary figure, "
    "pcie-protocol.md §10: microseconds)" },
  { "link.replay_timer_symbols", K_INT, OFF (link.replay_timer_symbols), 0, 1 << 24, FALSE, NULL, NULL, "0",
    "symbol times", "REPLAY_TIMER limit; 0 = the spec's: 1500 flits in flit mode; non-flit 24000 at 16 GT/s "
    "and above (simplified limit, low end), 3 x the Ack latency limit below (spec §3.6.2.1, pcie-protocol.md §10)" },
  { "link.max_payload", K_INT, OFF (link.max_payload), 128, 4096, TRUE, NULL, NULL, "128", "bytes",
    "Max_Payload_Size (spec §7.5.3.4; default 128 is the spec's reset value)" },
  { "link.max_read_request", K_INT, OFF (link.max_read_request), 128, 4096, TRUE, NULL, NULL, "512", "bytes",
    "Max_Read_Request_Size (spec §7.5.3.4; default 512 is the spec's reset value)" },
  { "link.read_completion_boundary", K_INT, OFF (link.read_completion_boundary), 64, 128, FALSE, rcb_allowed, NULL,
    "64", "bytes", "root complex RCB (spec §2.3.1.1; Link Control bit 3 resets to 0 = 64 bytes)" },
  { "link.ecrc", K_BOOL, OFF (link.ecrc), 0, 0, FALSE, NULL, NULL, "false", "",
    "append a 4-byte ECRC to every TLP in both directions (spec §2.7); lowers the protocol limit, not the "
    "vendor's theoretical figure" },
  { "link.address_bits", K_INT, OFF (link.address_bits), 32, 64, FALSE, addr_allowed, NULL, "32", "bits",
    "DMA addresses: 32 gives 3-DW MWr/MRd headers, 64 gives 4-DW (spec §2.2.4)" },
  { "link.tx_pipeline_ns", K_DOUBLE, OFF (link.tx_pipeline_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "transmit pipeline, TLP accepted -> first symbol on the wire (device files state theirs)" },
  { "link.rx_pipeline_ns", K_DOUBLE, OFF (link.rx_pipeline_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "receive pipeline, last symbol in -> TLP handed to the transaction layer" },
  { "link.flight_ns", K_DOUBLE, OFF (link.flight_ns), 0, 1e6, FALSE, NULL, NULL, "1", "ns",
    "channel propagation each way (about 20 cm of board trace and connector)" },
  { "link.replay_buffer_bytes", K_INT, OFF (link.replay_buffer_bytes), 0, 1 << 24, FALSE, NULL, NULL, "0", "bytes",
    "transmit replay buffer; a full buffer stalls new TLPs; 0 = unlimited" },
  { "link.tx_queue_tlps", K_INT, OFF (link.tx_queue_tlps), 0, 1 << 20, FALSE, NULL, NULL, "2", "TLPs",
    "TLPs the IP's transmit buffer holds ahead of the wire (hard IPs accept a TLP only when about one more fits; "
    "the application then waits on tx ready); 0 = unlimited (the stream workload, which has no application "
    "to wait, uses 4)" },
  { "link.updatefc_period_ns", K_DOUBLE, OFF (link.updatefc_period_ns), 100, 30000, FALSE, NULL, NULL, "30000", "ns",
    "periodic UpdateFC for every finite credit type (spec §2.6.1.2: at least every 30 us)" },
  { "link.updatefc_policy", K_ENUM, OFF (link.updatefc_policy), 0, 0, FALSE, NULL, updatefc_words, "minimum", "",
    "when receivers return credits: minimum = only the spec §2.6.1.2 rules (exhausted type, 30 us refresh); "
    "recommended = also within the spec Table 2-54 latency after credits are freed, coalesced like Acks" },
  { "link.updatefc_latency_symbols", K_INT, OFF (link.updatefc_latency_symbols), 0, 1 << 20, FALSE, NULL, NULL,
    "0", "symbol times", "explicit UpdateFC latency instead of the policy's; 0 = use link.updatefc_policy" },
  { "link.updatefc_hdr_threshold_credits", K_INT, OFF (link.updatefc_hdr_threshold_credits), 0, 2032, FALSE, NULL,
    NULL, "0", "credits", "also send UpdateFC once this many header credits were freed; 0 = off" },
  { "link.updatefc_data_threshold_credits", K_INT, OFF (link.updatefc_data_threshold_credits), 0, 32752, FALSE,
    NULL, NULL, "0", "credits", "also send UpdateFC once this many data credits were freed; 0 = off" },
  { "link.skp_interval_symbols", K_INT, OFF (link.skp_interval_symbols), 0, 1 << 20, FALSE, NULL, NULL, "0",
    "symbol times", "between SKP ordered sets; 0 = the spec minimum (1180 at 8b/10b, 370 blocks at 128b/130b)" },

  { "endpoint.tags", K_INT, OFF (endpoint.tags), 1, 15360, FALSE, NULL, NULL, "32", "tags",
    "outstanding read requests (spec §2.2.6.2: 32 with 5-bit tags, 256 with 8-bit extended tags, 768 with "
    "10-bit tags; above 768 only 14-bit flit-mode tags with the stream workload, 15360 usable: Tag[13:10] != 0)" },
  /* Their table defaults are Gen1 x1's: a config that gives neither gets the hard IP's pair for its link
   * (apply_datapath_default()), and one that gives one of them the other to go with it. */
  { "endpoint.datapath_bits", K_INT, OFF (endpoint.datapath_bits), 64, 1024, FALSE, width_allowed, NULL, "64",
    "bits", "application interface width (Avalon-ST; pcie-protocol.md §7: 512 or 1024 bits on Gen4/5 hard IPs); "
    "not given: the hard IP's for link.gen and link.lanes (64 at Gen1 x1, 128 at Gen2 x8, 256 at Gen3 x8, 512 at "
    "Gen4, 1024 at Gen5 x16)" },
  { "endpoint.clock_mhz", K_DOUBLE, OFF (endpoint.clock_mhz), 1, 1000, FALSE, NULL, NULL, "125", "MHz",
    "application interface clock (pcie-protocol.md §7); not given: the hard IP's for link.gen and link.lanes "
    "(125 at Gen1 x1, 250 at Gen2 x8 and Gen3 x8, 500 at Gen4 and up)" },
  { "endpoint.soft_ip", K_BOOL, OFF (endpoint.soft_ip), 0, 0, FALSE, NULL, NULL, "false", "",
    "transaction and data link layers built in FPGA fabric rather than hard IP" },
  CREDIT_KEYS ("endpoint.rx_credits", endpoint.rx_credits, "the endpoint"),
  { "endpoint.completion_buffer_bytes", K_INT, OFF (endpoint.completion_buffer_bytes), 0, 1 << 24, FALSE, NULL, NULL,
    "0", "bytes", "receive buffer for read completions; outstanding read bytes never exceed it; 0 = unlimited" },
  { "endpoint.completion_buffer_headers", K_INT, OFF (endpoint.completion_buffer_headers), 0, 1 << 16, FALSE, NULL,
    NULL, "0", "completions", "header slots of the read-completion buffer: a read is issued only when every "
    "completion it may come back as (one per read completion boundary block it touches, spec §2.3.1.1) has a "
    "slot, as a requester advertising infinite completion credits must (spec §2.6.1); 0 = unlimited" },
  { "endpoint.header_own_beat", K_BOOL, OFF (endpoint.header_own_beat), 0, 0, FALSE, NULL, NULL, "false", "",
    "TLP header never shares an interface beat with data (256-bit Avalon-MM style)" },
  { "endpoint.straddle", K_BOOL, OFF (endpoint.straddle), 0, 0, FALSE, NULL, NULL, "false", "",
    "512/1024-bit datapaths: a TLP may start at any 256-bit boundary of a beat, so two (four) share a beat, both "
    "ways (Intel P-/F-/R-tile Avalon-ST segments, Xilinx PG213/PG343 straddle); false = one TLP per beat, which "
    "caps a 512-bit 250 MHz datapath at 12.8 GB/s of 256-byte TLPs (README, 'Straddle')" },
  { "endpoint.tx_gap_cycles", K_INT, OFF (endpoint.tx_gap_cycles), 0, 1000, FALSE, NULL, NULL, "0", "cycles",
    "idle application-clock cycles after each transmitted TLP (arbiter turnaround)" },
  { "endpoint.rx_overhead_cycles", K_INT, OFF (endpoint.rx_overhead_cycles), 0, 1000, FALSE, NULL, NULL, "0",
    "cycles", "extra application-clock cycles per received TLP (completion bookkeeping)" },
  { "endpoint.rx_overhead_bytes", K_INT, OFF (endpoint.rx_overhead_bytes), 0, 4096, FALSE, NULL, NULL, "0",
    "bytes", "extra interface bytes per received TLP, rounded up to whole beats (a per-TLP receive cost that "
    "scales with the width: 16 is 2 beats at 64 bits, 1 at 128 or 256)" },
  { "endpoint.arb_switch_cycles", K_INT, OFF (endpoint.arb_switch_cycles), 0, 1000, FALSE, NULL, NULL, "0",
    "cycles", "idle application-clock cycles when the transmit grant moves from one DMA engine to the other" },
  { "endpoint.ack_every_tlps", K_INT, OFF (endpoint.ack_every_tlps), 0, 4096, FALSE, NULL, NULL, "0", "TLPs",
    "the endpoint's data link layer Acks at the latest after this many TLPs (the spec bounds only the latency, "
    "§3.6.3.1); 0 = Ack latency timer only" },
  { "endpoint.arbitration", K_ENUM, OFF (endpoint.arbitration), 0, 0, FALSE, NULL, arbitration_words,
    "round_robin", "", "transmit arbitration between the DMA engines: round_robin, priority (write engine "
    "first) or read_priority (read engine first)" },
  { "endpoint.dma_issue_cycles", K_INT, OFF (endpoint.dma_issue_cycles), 0, 1000000, FALSE, NULL, NULL, "0",
    "cycles", "microbench workload: the device's DMA engine starts a DMA command at most once per this many cycles "
    "of endpoint.clock_mhz (a NIC-style engine's command rate; microbench.outstanding is how many it keeps in "
    "flight); 0 = no limit" },
  { "endpoint.memory_read_latency_ns", K_DOUBLE, OFF (endpoint.memory_read_latency_ns), 0, 1e6, FALSE, NULL, NULL,
    "0", "ns", "a fabric's endpoint as a read target (peer-to-peer): MRd taken in -> its data ready; on-chip memory "
    "answers within a few cycles, 0 = at once" },
  { "endpoint.bar_read_latency_cycles", K_INT, OFF (endpoint.bar_read_latency_cycles), 0, 1000000, FALSE, NULL, NULL,
    "0", "cycles", "BAR memory (the PIO modes' BAR1): a read taken in -> its completion data ready, in "
    "application-clock cycles (the completer's state machine and RAM read); completions cut by RCB and MPS" },

  /* Where AN-456 states a value of its chaining DMA design or benchmark (4 KiB descriptors, MSI, 100 KB
   * transfers averaged over 20), dma.* and benchmark.* take it as the default. */
  { "dma.desc_max_bytes", K_INT, OFF (dma.desc_max_bytes), 0, 1 << 30, FALSE, NULL, NULL, "4096", "bytes",
    "driver: largest transfer per descriptor (AN-456: one table entry per memory page); 0 = one descriptor" },
  { "dma.desc_per_fetch", K_INT, OFF (dma.desc_per_fetch), 1, 256, FALSE, NULL, NULL, "1", "descriptors",
    "descriptors read by one descriptor-fetch MRd" },
  { "dma.desc_fifo_entries", K_INT, OFF (dma.desc_fifo_entries), 1, 256, FALSE, NULL, NULL, "32", "descriptors",
    "descriptors one engine can hold; a fetch goes out when a batch fits" },
  { "dma.desc_setup_cycles", K_INT, OFF (dma.desc_setup_cycles), 0, 100000, FALSE, NULL, NULL, "0", "cycles",
    "application-clock cycles from taking a descriptor to its first data TLP" },
  { "dma.msi", K_BOOL, OFF (dma.msi), 0, 0, FALSE, NULL, NULL, "true", "",
    "the engine signals the end of a transfer with an MSI (AN-456: MSI, 4 messages); false = software polls" },
  { "dma.channels", K_INT, OFF (dma.channels), 1, 4, FALSE, channels_allowed, NULL, "1", "channels",
    "engine pairs (one write, one read each) with their own registers and descriptor tables, sharing tags and the "
    "datapath round robin; each moves benchmark.transfer_bytes (XDMA offers 1, 2 or 4 H2C/C2H channels)" },
  { "dma.descriptor_mode", K_ENUM, OFF (dma.descriptor_mode), 0, 0, FALSE, NULL, descriptor_mode_words, "chained",
    "", "how a transfer is timed: chained = descriptors chained in a ring, the engine's own counter, no software "
    "inside (AN-456, XDMA hardware figures); software = a driver times each transfer from deciding to start it "
    "to its handler seeing the end (host.pio_latency_ns, host.msi_latency_ns or polling included)" },
  { "dma.counter_start", K_ENUM, OFF (dma.counter_start), 0, 0, FALSE, NULL, counter_words, "endpoint", "",
    "performance counter starts when the engine decodes the start write (endpoint) or when it leaves the host" },

  CREDIT_KEYS ("host.rx_credits", host.rx_credits, "the root port"),
  { "host.read_latency_ns", K_DOUBLE, OFF (host.read_latency_ns), 0, 1e7, FALSE, NULL, NULL, "500", "ns",
    "root complex: MRd received -> first completion ready (pcie-bench: 0.5-1.3 us round trips)" },
  { "host.read_latency_ps_per_byte", K_DOUBLE, OFF (host.read_latency_ps_per_byte), 0, 1e6, FALSE, NULL, NULL,
    "0", "ps per byte", "size-dependent part of the read latency (pcie-bench: about 0.3 ns/B on Sandy Bridge-EP)" },
  { "host.cold_cache_latency_ns", K_DOUBLE, OFF (host.cold_cache_latency_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "added to host.read_latency_ns when microbench.cache is cold: the data comes from DRAM instead of the last-level "
    "cache (pcie-protocol.md §11); 0 = no difference modelled" },
  { "host.completion_bytes", K_INT, OFF (host.completion_bytes), 0, 4096, FALSE, NULL, NULL, "0", "bytes",
    "completion size policy: 0 = up to MPS; else the chunk size the chipset returns (often 64, a cache line)" },
  { "host.completion_mbps", K_DOUBLE, OFF (host.completion_mbps), 0, 1e6, FALSE, NULL, NULL, "0", "MB/s",
    "rate at which the host can return completion data; 0 = unlimited" },
  { "host.completion_overhead_ns", K_DOUBLE, OFF (host.completion_overhead_ns), 0, 1e6, FALSE, NULL, NULL, "0",
    "ns", "fixed return-path time per completion TLP, on top of the data rate" },
  { "host.read_queue_depth", K_INT, OFF (host.read_queue_depth), 0, 4096, FALSE, NULL, NULL, "0", "requests",
    "reads the root complex works on at once; more wait in the root port holding their NP credit; 0 = unlimited" },
  { "host.iommu.enabled", K_BOOL, OFF (host.iommu.enabled), 0, 0, FALSE, NULL, NULL, "false", "",
    "DMA addresses are translated by an IOMMU (Intel VT-d): every DMA request to host memory looks its page up in "
    "the IOTLB, and a miss waits for a page walk (docs/host-model.md §3)" },
  { "host.iommu.iotlb_entries", K_INT, OFF (host.iommu.iotlb_entries), 1, 4096, FALSE, NULL, NULL, "64", "entries",
    "translations the IOTLB holds, least recently used replaced; its reach is entries x page_bytes (pcie-bench's "
    "knee near 256 KB of 4 KB pages: about 64, docs/host-model.md §3)" },
  { "host.iommu.page_bytes", K_INT, OFF (host.iommu.page_bytes), 4096, 1073741824, FALSE, page_allowed, NULL, "4096",
    "bytes", "the page one IOTLB entry translates: 4 KB, 2 MB or 1 GB (the DMA buffer's mapping)" },
  { "host.iommu.walk_ns", K_DOUBLE, OFF (host.iommu.walk_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "an IOTLB miss: the page walk's dependent memory reads; one walker, so walks queue behind one another, and "
    "the request (and every posted write behind a write) waits for its translation" },
  { "host.ack_every_tlps", K_INT, OFF (host.ack_every_tlps), 0, 4096, FALSE, NULL, NULL, "0", "TLPs",
    "the root port Acks at the latest after this many TLPs; 0 = Ack latency timer only" },
  { "host.write_drain_mbps", K_DOUBLE, OFF (host.write_drain_mbps), 0, 1e6, FALSE, NULL, NULL, "0", "MB/s",
    "rate at which the host drains posted writes from its receive buffer; 0 = unlimited" },
  { "host.write_latency_ns", K_DOUBLE, OFF (host.write_latency_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "posted write drained -> its receive-buffer slot and P credits released" },
  { "host.pio_latency_ns", K_DOUBLE, OFF (host.pio_latency_ns), 0, 1e7, FALSE, NULL, NULL, "0", "ns",
    "software: decision to start a DMA -> its first PIO write leaves the root port" },
  { "host.pio_gap_ns", K_DOUBLE, OFF (host.pio_gap_ns), 0, 1e7, FALSE, NULL, NULL, "0", "ns",
    "software: between consecutive uncached register writes" },
  { "host.msi_latency_ns", K_DOUBLE, OFF (host.msi_latency_ns), 0, 1e8, FALSE, NULL, NULL, "0", "ns",
    "software: MSI received -> handler has seen it" },
  { "host.poll_interval_ns", K_DOUBLE, OFF (host.poll_interval_ns), 0, 1e8, FALSE, NULL, NULL, "1000", "ns",
    "software: status polling period when MSI is off" },
  { "host.iteration_gap_ns", K_DOUBLE, OFF (host.iteration_gap_ns), 0, 1e9, FALSE, NULL, NULL, "0", "ns",
    "software: bookkeeping between one transfer's end and programming the next" },
  { "host.cpu_access_ns", K_DOUBLE, OFF (host.cpu_access_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "the path between a core and the root port, each way (front-side bus, chipset): a PIO write's stores cross it "
    "once on their way out, a PIO read pays it twice per load" },
  { "host.cpu_write_queue_tlps", K_INT, OFF (host.cpu_write_queue_tlps), 0, 4096, FALSE, NULL, NULL, "0", "TLPs",
    "the root complex's queue of a core's posted writes: it takes a write while fewer than this many are inside it "
    "(not yet handed to the root port's link), and a fence ends once its writes are taken; 0 = no queue, a write "
    "is taken only when the root port can send it at once" },
  { "host.cpu_write_post_ns", K_DOUBLE, OFF (host.cpu_write_post_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "with host.cpu_write_queue_tlps: the part of host.cpu_access_ns a core's write crosses before the queue takes "
    "it (the front-side bus's write transaction, which a fence waits for); the rest it crosses inside the root "
    "complex; at most host.cpu_access_ns" },
  { "host.cpu_write_transaction_ns", K_DOUBLE, OFF (host.cpu_write_transaction_ns), 0, 1e6, FALSE, NULL, NULL, "0",
    "ns", "the time the bus between the cores and the root complex (front-side bus) is held per CPU write "
    "transaction: a full write-combining line, each 8-byte partial write and each uncached store is one, and the "
    "cores' writes start that far apart at least (its part of host.cpu_write_post_ns, or of host.cpu_access_ns "
    "without a queue, is pipelined); 0 = writes never wait for one another" },

  /* A fabric's switches (README, "Fabrics"): every switch node's values unless the node gives its own. */
  { "switch.forwarding", K_ENUM, OFF (sw.forwarding), 0, 0, FALSE, NULL, forwarding_words, "cut_through", "",
    "cut_through: a TLP leaves once its header is in and routed; store_and_forward: once the whole TLP and its LCRC "
    "are in (pcie-protocol.md §8: PLX/Broadcom switches cut through)" },
  { "switch.latency_ns", K_DOUBLE, OFF (sw.latency_ns), 0, 1e6, FALSE, NULL, NULL, "150", "ns",
    "port-to-port latency, pin to pin, from the header (cut-through) or the whole TLP (store-and-forward) in to "
    "the first symbol out (pcie-protocol.md §8: Gen2 140-160 ns, PEX 8647 140 ns max; Gen3 about 150 ns)" },
  { "switch.dll_latency_ns", K_DOUBLE, OFF (sw.dll_latency_ns), 0, 1e6, FALSE, NULL, NULL, "50", "ns",
    "a port's own receive path, pins to its data link layer: what an Ack or UpdateFC takes to act (a TLP's is part "
    "of switch.latency_ns, at most that). ASSUMPTION, no datasheet gives it: 20-100 ns, a few clocks of a 250-500 "
    "MHz core for the PHY (deskew, decoding) and the CRC check, a part of the 105-160 ns port to port" },
  { "switch.updatefc_policy", K_ENUM, OFF (sw.updatefc_policy), 0, 0, FALSE, NULL, switch_updatefc_words, "link",
    "", "when switch ports return credits: link = as link.updatefc_policy says for every receiver; minimum or "
    "recommended as there, for the switch's ports alone. UNCONFIRMED: no switch datasheet states its UpdateFC "
    "cadence; the spec requires only the minimum rules (§2.6.1.2) and recommends Table 2-54's latency" },
  { "switch.arbitration", K_ENUM, OFF (sw.arbitration), 0, 0, FALSE, NULL, switch_arbitration_words, "round_robin",
    "", "egress arbitration among ingress ports: round_robin (one TLP each in turn) or weighted_round_robin "
    "(weights: of the switch node, TLPs in a row per port; pcie-protocol.md §8)" },
  { "switch.buffer", K_ENUM, OFF (sw.buffer), 0, 0, FALSE, NULL, buffer_words, "per_port", "",
    "per_port: a TLP holds its ingress port's buffer (its credits) until it leaves; shared: a TLP that fits moves "
    "at once into the central memory (switch.pool.*), returning its port's credits (pcie-protocol.md §8)" },
  { "switch.rx_credits.ph", K_INT, OFF (sw.rx_credits.ph), 0, 2032, FALSE, NULL, NULL, "64", "credits",
    "posted-header credits each switch port advertises; 0 = infinite (UNCONFIRMED: no datasheet figure; sized "
    "with the data credits on the PEX 8532's x4 port buffer of pcie-protocol.md §8)" },
  { "switch.rx_credits.pd", K_INT, OFF (sw.rx_credits.pd), 0, 32752, FALSE, NULL, NULL, "640", "credits (16 bytes)",
    "posted-data credits each switch port advertises: 10 KB, what the PEX 8532 drains from a x4 port in 2,560 "
    "clocks (pcie-protocol.md §8; UNCONFIRMED for other switches)" },
  { "switch.rx_credits.nph", K_INT, OFF (sw.rx_credits.nph), 0, 2032, FALSE, NULL, NULL, "64", "credits",
    "non-posted-header credits each switch port advertises (UNCONFIRMED, as switch.rx_credits.ph)" },
  { "switch.rx_credits.npd", K_INT, OFF (sw.rx_credits.npd), 0, 32752, FALSE, NULL, NULL, "64", "credits (16 bytes)",
    "non-posted-data credits each switch port advertises (reads carry none)" },
  { "switch.rx_credits.cplh", K_INT, OFF (sw.rx_credits.cplh), 0, 2032, FALSE, NULL, NULL, "64", "credits",
    "completion-header credits each switch port advertises: finite, a switch is no completer (spec §2.6.1; "
    "UNCONFIRMED size, as switch.rx_credits.ph)" },
  { "switch.rx_credits.cpld", K_INT, OFF (sw.rx_credits.cpld), 0, 32752, FALSE, NULL, NULL, "640",
    "credits (16 bytes)", "completion-data credits each switch port advertises (as switch.rx_credits.pd)" },
  { "switch.pool.ph", K_INT, OFF (sw.pool.ph), 0, 1 << 20, FALSE, NULL, NULL, "0", "credits",
    "switch.buffer shared: the central memory's posted headers; 0 = unlimited" },
  { "switch.pool.pd", K_INT, OFF (sw.pool.pd), 0, 1 << 24, FALSE, NULL, NULL, "0", "credits (16 bytes)",
    "switch.buffer shared: the central memory's posted data; 0 = unlimited" },
  { "switch.pool.nph", K_INT, OFF (sw.pool.nph), 0, 1 << 20, FALSE, NULL, NULL, "0", "credits",
    "switch.buffer shared: the central memory's non-posted headers; 0 = unlimited" },
  { "switch.pool.npd", K_INT, OFF (sw.pool.npd), 0, 1 << 24, FALSE, NULL, NULL, "0", "credits (16 bytes)",
    "switch.buffer shared: the central memory's non-posted data; 0 = unlimited" },
  { "switch.pool.cplh", K_INT, OFF (sw.pool.cplh), 0, 1 << 20, FALSE, NULL, NULL, "0", "credits",
    "switch.buffer shared: the central memory's completion headers; 0 = unlimited" },
  { "switch.pool.cpld", K_INT, OFF (sw.pool.cpld), 0, 1 << 24, FALSE, NULL, NULL, "0", "credits (16 bytes)",
    "switch.buffer shared: the central memory's completion data; 0 = unlimited" },
  { "fabric.active_flows", K_INT, OFF (fabric.active_flows), 0, 1 << 16, FALSE, NULL, NULL, "0", "flows",
    "run only the first N flows of the flows: list (0 = all), so a sweep can vary how many transfers share a "
    "fabric" },

  /* The host's CPU (models/cpu.h): its cores, the PIO modes' program and the driver's costs. The defaults are a
   * CPU that costs nothing and draws nothing, which is what every config before it ran. */
  { "cpu.wc_buffers", K_INT, OFF (cpu.wc_buffers), 1, 64, FALSE, NULL, NULL, "8", "buffers",
    "write-combining buffers per core (pcie-protocol.md §9: Pentium 4 6, Core-era cores 8-10)" },
  { "cpu.wc_buffer_bytes", K_INT, OFF (cpu.wc_buffer_bytes), 32, 64, FALSE, wc_bytes_allowed, NULL, "64", "bytes",
    "write-combining buffer size: a full one leaves as one write of this size (Intel SDM §11.3.1: 64; 32 on P6)" },
  { "cpu.store_ns", K_DOUBLE, OFF (cpu.store_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "core time per store instruction of a PIO write" },
  { "cpu.pio_write_mapping", K_ENUM, OFF (cpu.pio_write_mapping), 0, 0, FALSE, NULL, mapping_words, "wc", "",
    "how the BAR a PIO write stores to is mapped: wc = write-combining (64-byte writes, 8-byte partial writes "
    "for a partly filled buffer), uc = uncached (one write per store) (pcie-protocol.md §9)" },
  { "cpu.store_bytes", K_INT, OFF (cpu.store_bytes), 1, 32, FALSE, access_allowed, NULL, "8", "bytes",
    "PIO write: bytes per store, as memcpy cuts the copy (8: 64-bit moves; 16: SSE; 32: AVX)" },
  { "cpu.load_bytes", K_INT, OFF (cpu.load_bytes), 1, 32, FALSE, access_allowed, NULL, "4", "bytes",
    "PIO read: bytes per uncached load; each load waits for its completion (one outstanding per core)" },
  { "cpu.transfer_overhead_ns", K_DOUBLE, OFF (cpu.transfer_overhead_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "PIO modes: software work inside each timed transfer besides the accesses (timer reads, the call)" },
  { "cpu.dma_setup_ns", K_DOUBLE, OFF (cpu.dma_setup_ns), 0, 1e8, FALSE, NULL, NULL, "0", "ns",
    "driver: work per DMA start before its doorbell (system call, set-up)" },
  { "cpu.dma_descriptor_ns", K_DOUBLE, OFF (cpu.dma_descriptor_ns), 0, 1e6, FALSE, NULL, NULL, "0", "ns",
    "driver: work per descriptor of a DMA start (pinning and mapping its page, writing the descriptor)" },
  DIST_KEYS ("cpu.interrupt", cpu.interrupt,
             "MSI delivered (after host.msi_latency_ns) -> the interrupt handler runs, a random time"),
  DIST_KEYS ("cpu.wakeup", cpu.wakeup, "interrupt handler -> the process waiting for the transfer runs, a random time"),

  { "benchmark.transfer_bytes", K_INT, OFF (benchmark.transfer_bytes), 1, (double) (1ULL << 40), FALSE, NULL, NULL,
    "102400", "bytes", "bytes per transfer (AN-456 uses 100 KB = 102400); a DMA moves whole DWs: a size that is not one "
    "is moved rounded up to whole DWs and counted at the bytes asked; a PIO transfer any number of bytes" },
  { "benchmark.iterations", K_INT, OFF (benchmark.iterations), 1, 1000000, FALSE, NULL, NULL, "20", "",
    "transfers averaged (AN-456 uses 20)" },
  { "benchmark.modes", K_MODES, OFF (benchmark.modes), 0, 0, FALSE, NULL, NULL, "[read, write, simultaneous]", "",
    "modes run by default: read, write, simultaneous, or all (the three), and pio_read, pio_write (a CPU core "
    "reading or writing BAR memory)" },
  { "benchmark.workload", K_ENUM, OFF (benchmark.workload), 0, 0, FALSE, NULL, workload_words, "chaining_dma", "",
    "chaining_dma (AN-456 engine, host and datapath), stream (saturating link-only source, no DMA engine) or "
    "microbench (pcie-bench's tests, microbench.*)" },
  { "benchmark.stream_payload_bytes", K_INT, OFF (benchmark.stream_payload_bytes), 0, 4096, TRUE, NULL, NULL, "0",
    "bytes", "stream workload: bytes per TLP, the MWr payload (write) or read request (read); 0 = max_payload "
    "(write) or max_read_request (read)" },
  { "microbench.test", K_ENUM, OFF (microbench.test), 0, 0, FALSE, NULL, ps_microbench_test_words, "lat_rd", "",
    "microbench workload, pcie-bench's tests (pcie-protocol.md §11): lat_rd (one DMA read at a time), lat_wrrd (a "
    "write then a read of the same address), bw_rd, bw_wr, bw_rdwr (microbench.outstanding DMAs in flight)" },
  { "microbench.transfer_bytes", K_INT, OFF (microbench.transfer_bytes), 4, 1 << 20, FALSE, NULL, NULL, "64", "bytes",
    "microbench: bytes per DMA, whole DWs (pcie-bench's transfer size)" },
  { "microbench.window_bytes", K_INT, OFF (microbench.window_bytes), 4, 1 << 30, FALSE, NULL, NULL, "8192", "bytes",
    "microbench: the host buffer the DMAs' offsets lie in (pcie-bench's window), at least microbench.transfer_bytes" },
  { "microbench.outstanding", K_INT, OFF (microbench.outstanding), 1, 65535, FALSE, NULL, NULL, "64", "DMAs",
    "microbench bw_*: DMAs in flight at once (lat_* run one at a time); the tags still bound the reads" },
  { "microbench.dmas", K_INT, OFF (microbench.dmas), 1, 10000000, FALSE, NULL, NULL, "1000", "DMAs",
    "microbench: DMAs measured per test (bw_rdwr: this many reads and this many writes)" },
  { "microbench.offsets", K_ENUM, OFF (microbench.offsets), 0, 0, FALSE, NULL, offsets_words, "sequential", "",
    "microbench: DMA offsets in the window, sequential (transfer-sized slots in order, wrapping) or random (slots "
    "drawn from a stream seeded by --seed)" },
  { "microbench.cache", K_ENUM, OFF (microbench.cache), 0, 0, FALSE, NULL, cache_words, "warm", "",
    "microbench: host cache state of the window; cold adds host.cold_cache_latency_ns to every read" },
  { "benchmark.watchdog_ns", K_DOUBLE, OFF (benchmark.watchdog_ns), 1000, 1e12, FALSE, NULL, NULL, "1e7", "ns",
    "deadlock watchdog: stop with an internal error naming what each component waits for when this much "
    "simulated time passes with a transfer unfinished and no TLP delivered (stretched by the host's longest wait)" },

  /* No defaults and not required: a figure the source does not give stays NaN and is not compared. */
  { "published.source", K_STRING, OFF (published.source), 0, 0, FALSE, NULL, NULL, NULL, "",
    "where the published figures come from (document and table)" },
  { "published.dma_read_mbps", K_DOUBLE, OFF (published.dma_read_mbps), 0, 1e6, FALSE, NULL, NULL, NULL, "MB/s",
    "published DMA read throughput (compared only, never a model input)" },
  { "published.dma_write_mbps", K_DOUBLE, OFF (published.dma_write_mbps), 0, 1e6, FALSE, NULL, NULL, NULL, "MB/s",
    "published DMA write throughput" },
  { "published.simultaneous_read_mbps", K_DOUBLE, OFF (published.simultaneous_read_mbps), 0, 1e6, FALSE, NULL, NULL,
    NULL, "MB/s", "published read throughput with both engines running" },
  { "published.simultaneous_write_mbps", K_DOUBLE, OFF (published.simultaneous_write_mbps), 0, 1e6, FALSE, NULL, NULL,
    NULL, "MB/s", "published write throughput with both engines running" },
  { "published.theoretical_mbps", K_DOUBLE, OFF (published.theoretical_mbps), 0, 1e6, FALSE, NULL, NULL, NULL,
    "MB/s", "the vendor's theoretical maximum as printed" },
  { "published.peak_write_mbps", K_DOUBLE, OFF (published.peak_write_mbps), 0, 1e6, FALSE, NULL, NULL, NULL, "MB/s",
    "published steady-state write throughput of the interface in simultaneous mode, read-request cycles counted "
    "(a logic analyser's window, published-calibration.md §2.1; compared with results.simultaneous.peak)" },
  { "published.peak_write_excluding_read_requests_mbps", K_DOUBLE,
    OFF (published.peak_write_excluding_read_requests_mbps), 0, 1e6, FALSE, NULL, NULL, NULL, "MB/s",
    "the same with the read-request cycles left out" },
  { "published.peak_read_mbps", K_DOUBLE, OFF (published.peak_read_mbps), 0, 1e6, FALSE, NULL, NULL, NULL, "MB/s",
    "published steady-state completion throughput of the receive interface in simultaneous mode" },
  { "published.suspect.figures", K_WORDS, OFF (published.suspect_figures), 0, 0, FALSE, NULL, ps_figure_words,
    NULL, "", "published figures suspected to be measurement artifacts: shown flagged with the reason, left out of "
    "validate's statistics (counted with --strict)" },
  { "published.suspect.reason", K_STRING, OFF (published.suspect_reason), 0, 0, FALSE, NULL, NULL, NULL, "",
    "why the figures are suspect: the evidence, in one line (required with published.suspect.figures)" },
};

#define N_KEYS G_N_ELEMENTS (keys)

/* Linear search: ~70 keys, and lookups happen only while loading. */
static const KeyDef *
find_key (const char *path)
{
  for (size_t i = 0; i < N_KEYS; i++)
    if (strcmp (keys[i].path, path) == 0)
      return &keys[i];
  return NULL;
}

/* A section is a proper prefix of some key at a dot. The dot test keeps "lin" from passing as the start of
 * "link", and a full key path is no section (no key extends it). */
static gboolean
is_section (const char *path)
{
  size_t n = strlen (path);
  for (size_t i = 0; i < N_KEYS; i++)
    if (strncmp (keys[i].path, path, n) == 0 && keys[i].path[n] == '.')
      return TRUE;
  return FALSE;
}

/* For scenario.c, which checks the keys its overrides and axes name before any point's config loads, so that a
 * typo is reported at the scenario's own line rather than as a failed load. */
gboolean
ps_config_key_exists (const char *path)
{
  return find_key (path) != NULL;
}

gboolean
ps_config_is_section (const char *path)
{
  return is_section (path);
}

/* Built once, on first use, from the table: the table stays the one list of keys. */
const char *const *
ps_config_keys (void)
{
  static const char **paths;
  if (g_once_init_enter (&paths)) {
    const char **p = g_new0 (const char *, N_KEYS + 1);
    for (size_t i = 0; i < N_KEYS; i++)
      p[i] = keys[i].path;
    g_once_init_leave (&paths, p);
  }
  return paths;
}

/* Keys that change nothing a run simulates (config.h): a --set of one of these leaves the published figures
 * comparable. A list of its own rather than a column of the table, which other keys are added to often. */
static const char *const output_keys[] = { "name", "benchmark.modes", "benchmark.watchdog_ns", NULL };

gboolean
ps_config_key_is_output (const char *path)
{
  return g_str_has_prefix (path, "published.") || g_strv_contains (output_keys, path);
}

const char *
ps_from_name (PsFrom from)
{
  switch (from) {
  case PS_FROM_DEFAULT:
    return "default";
  case PS_FROM_FILE:
    return "file";
  case PS_FROM_INCLUDE:
    return "include";
  case PS_FROM_SET:
    return "set";
  case PS_FROM_ABSENT:
    return "absent";
  }
  return "?";
}

/* A PsConfig a test fills by hand has no origins: every key then reads as a default. */
static const PsKeyOrigin *
origin_of (const PsConfig *cfg, size_t i)
{
  static const PsKeyOrigin unknown = { .from = PS_FROM_DEFAULT };
  return cfg->origins ? &cfg->origins[i] : &unknown;
}

const PsKeyOrigin *
ps_config_origin (const PsConfig *cfg, const char *path)
{
  const KeyDef *k = find_key (path);
  return k ? origin_of (cfg, (size_t) (k - keys)) : NULL;
}

/* Computed once per load (record_origins()), since every rendering of a result asks. */
static char *
set_changes (const PsConfig *cfg)
{
  GString *list = NULL;
  for (size_t i = 0; i < N_KEYS; i++)
    if (cfg->origins[i].from == PS_FROM_SET && !ps_config_key_is_output (keys[i].path)) {
      if (!list)
        list = g_string_new (NULL);
      g_string_append_printf (list, "%s%s", list->len ? ", " : "", keys[i].path);
    }
  return list ? g_string_free (list, FALSE) : NULL;
}

const char *
ps_config_set_changes (const PsConfig *cfg)
{
  return cfg->set_changes;
}

/* One key's value in JSON: the type the table gives it, so a script reads numbers as numbers. Doubles take 15
 * significant digits, which give back every decimal a config can hold (0.3, 1e7) without binary noise. */
static void
value_json (const KeyDef *k, const PsConfig *cfg, PsJson *j)
{
  const void *field = (const char *) cfg + k->offset;
  switch (k->type) {
  case K_INT:
    ps_json_int (j, *(const int64_t *) field);
    return;
  case K_DOUBLE:
    /* Absent published figures are NaN, which ps_json_general() writes as null. */
    ps_json_general (j, *(const double *) field, 15);
    return;
  case K_BOOL:
    ps_json_bool (j, *(const bool *) field);
    return;
  case K_STRING:
    if (*(char *const *) field)
      ps_json_string (j, *(char *const *) field);
    else
      ps_json_raw (j, "null");
    return;
  case K_MODES: {
    unsigned m = *(const unsigned *) field;
    ps_json_array (j, 0);
    for (unsigned bit = PS_MODE_READ; bit <= PS_MODE_PIO_WRITE; bit <<= 1)
      if (m & bit)
        ps_json_string (j, ps_mode_name (bit));
    ps_json_end (j);
    return;
  }
  case K_ENUM:
    ps_json_string (j, k->words[*(const int *) field]);
    return;
  case K_WORDS: {
    /* The only set of words is published.suspect.figures, whose absence (no bit) reads as null like an absent
     * published figure. */
    unsigned m = *(const unsigned *) field;
    if (!m) {
      ps_json_raw (j, "null");
      return;
    }
    ps_json_array (j, 0);
    for (int w = 0; k->words[w]; w++)
      if (m & (1u << w))
        ps_json_string (j, k->words[w]);
    ps_json_end (j);
    return;
  }
  case K_POINTS: {
    const PsPoints *pts = field;
    ps_json_array (j, 0);
    for (guint i = 0; i < pts->n; i++) {
      ps_json_array (j, 0);
      ps_json_general (j, pts->pairs[2 * i], 15);
      ps_json_general (j, pts->pairs[2 * i + 1], 15);
      ps_json_end (j);
    }
    ps_json_end (j);
    return;
  }
  }
}

/* A fabric's keys (switch.*, fabric.*, a memory target's latency) mean nothing to a one-link config: left at their
 * defaults there, they are not written, so its report stays what it was before fabrics existed. */
gboolean
ps_config_key_fabric_only (const char *path)
{
  return g_str_has_prefix (path, "switch.") || g_str_has_prefix (path, "fabric.")
         || strcmp (path, "endpoint.memory_read_latency_ns") == 0;
}

gboolean
ps_config_key_off_by_default (const char *path)
{
  return g_str_has_prefix (path, "host.iommu.") || strcmp (path, "endpoint.dma_issue_cycles") == 0;
}

static gboolean
key_written (const PsConfig *cfg, size_t i)
{
  if (origin_of (cfg, i)->from != PS_FROM_DEFAULT)
    return TRUE;
  return !ps_config_key_off_by_default (keys[i].path) && (!ps_config_key_fabric_only (keys[i].path) || cfg->topology);
}

void
ps_config_write_json (const PsConfig *cfg, PsJson *j, int indent)
{
  ps_json_object (j, indent);
  for (size_t i = 0; i < N_KEYS; i++) {
    if (!key_written (cfg, i))
      continue;
    const PsKeyOrigin *o = origin_of (cfg, i);
    ps_json_key (j, keys[i].path);
    ps_json_object (j, 0);
    ps_json_key (j, "value");
    value_json (&keys[i], cfg, j);
    ps_json_string_member (j, "from", ps_from_name (o->from));
    if (o->at)
      ps_json_string_member (j, "at", o->at);
    if (o->rule)
      ps_json_string_member (j, "rule", o->rule);
    ps_json_end (j);
  }
  ps_json_end (j);
}

static char *
value_text (const KeyDef *k, const PsConfig *cfg)
{
  GString *v = g_string_new (NULL);
  PsJson j;
  ps_json_init (&j, v);
  value_json (k, cfg, &j);
  return g_string_free (v, FALSE);
}

char *
ps_config_value_text (const PsConfig *cfg, const char *path)
{
  const KeyDef *k = find_key (path);
  return k ? value_text (k, cfg) : NULL;
}

/* Comment lines reuse the JSON value text, so the two cannot disagree on a value. */
void
ps_config_write_comments (const PsConfig *cfg, GString *out)
{
  for (size_t i = 0; i < N_KEYS; i++) {
    if (!key_written (cfg, i))
      continue;
    const PsKeyOrigin *o = origin_of (cfg, i);
    g_autofree char *v = value_text (&keys[i], cfg);
    /* "(--set link.lanes=4)" says it all; the other origins are named, then located or explained. */
    if (o->from == PS_FROM_SET)
      g_string_append_printf (out, "# %s = %s (%s)\n", keys[i].path, v, o->at);
    else
      g_string_append_printf (out, "# %s = %s (%s%s%s%s%s)\n", keys[i].path, v, ps_from_name (o->from),
                              o->at ? " " : "", o->at ? o->at : "", o->rule ? ": " : "", o->rule ? o->rule : "");
  }
}

/* Closest key or section name directly under `prefix` ("" for the top level), or NULL if none is close. A
 * section's name comes up once per key under it, which changes nothing: the first of equals wins. */
static char *
suggest (const char *prefix, const char *word)
{
  size_t np = strlen (prefix);
  g_autoptr (GPtrArray) children = g_ptr_array_new_with_free_func (g_free);
  for (size_t i = 0; i < N_KEYS; i++) {
    const char *p = keys[i].path;
    if (np && (strncmp (p, prefix, np) != 0 || p[np] != '.'))
      continue;
    const char *rest = np ? p + np + 1 : p;
    g_ptr_array_add (children, g_strndup (rest, strcspn (rest, ".")));
  }
  g_ptr_array_add (children, NULL);
  return g_strdup (ps_closest ((const char *const *) children->pdata, word, 3));
}

/* Closest full key path, for a --set whose section is misspelt too, when the leaf alone matched nothing under
 * it. The whole path is compared, so the allowance is a quarter of its length rather than a third. */
static char *
suggest_path (const char *path)
{
  return g_strdup (ps_closest (ps_config_keys (), path, 4));
}

/* --mode on the command line and benchmark.modes in a config share these words, so one list serves both. */
unsigned
ps_mode_parse (const char *word)
{
  if (strcmp (word, "read") == 0)
    return PS_MODE_READ;
  if (strcmp (word, "write") == 0)
    return PS_MODE_WRITE;
  if (strcmp (word, "simultaneous") == 0)
    return PS_MODE_SIMULTANEOUS;
  if (strcmp (word, "all") == 0)
    return PS_MODE_ALL;
  if (strcmp (word, "pio_read") == 0)
    return PS_MODE_PIO_READ;
  if (strcmp (word, "pio_write") == 0)
    return PS_MODE_PIO_WRITE;
  return 0;
}

/* Callers name one mode bit at a time (the builder's messages); PS_MODE_ALL or any other mask reads as "all". */
const char *
ps_mode_name (unsigned mode)
{
  switch (mode) {
  case PS_MODE_READ:
    return "read";
  case PS_MODE_WRITE:
    return "write";
  case PS_MODE_SIMULTANEOUS:
    return "simultaneous";
  case PS_MODE_PIO_READ:
    return "pio_read";
  case PS_MODE_PIO_WRITE:
    return "pio_write";
  default:
    return "all";
  }
}

/* Numbers and booleans must be plain scalars: "8" is a string in YAML, and accepting it would make a quoted
 * value mean different things in different places. */
static gboolean
want_scalar (const KeyDef *k, const YNode *n, const char *what, GError **error)
{
  if (n->kind != YNODE_SCALAR) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be %s, not %s", k->path, what, ytree_kind_name (n->kind));
    return FALSE;
  }
  if (k->type != K_STRING && !n->plain) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be %s, not a quoted string", k->path, what);
    return FALSE;
  }
  /* `key:` with nothing after it is an empty plain scalar (YAML's null): say it has no value, located just after
   * the colon, rather than that '' is no integer. A string may be empty ("" is name's own default). */
  if (k->type != K_STRING && n->value[0] == '\0') {
    ytree_error (error, PS_ERROR_DATA, n, "%s has no value (expected %s)", k->path, what);
    return FALSE;
  }
  return TRUE;
}

/* Integers are strict decimal (no 0x, no 8.0): configs are read by people, and sizes must be exact. */
static gboolean
convert_int (const KeyDef *k, const YNode *n, int64_t *out, GError **error)
{
  if (!want_scalar (k, n, "an integer", error))
    return FALSE;
  /* Parsed against the whole int64 range first, so OUT_OF_BOUNDS can only mean overflow and gets its own
   * message; the key's range is checked below, with its own numbers. */
  gint64 v;
  g_autoptr (GError) e = NULL;
  if (!g_ascii_string_to_signed (n->value, 10, G_MININT64, G_MAXINT64, &v, &e)) {
    if (g_error_matches (e, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
      ytree_error (error, PS_ERROR_DATA, n, "%s: %s does not fit in 64 bits", k->path, n->value);
    else
      ytree_error (error, PS_ERROR_DATA, n, "%s must be an integer, got '%s'", k->path, n->value);
    return FALSE;
  }
  /* The list goes first: its message names the valid values, where a range (lanes 1 to 16) would suggest 3. */
  if (k->allowed) {
    GString *list = g_string_new (NULL);
    gboolean ok = FALSE;
    for (const int64_t *a = k->allowed; *a >= 0; a++) {
      ok = ok || *a == v;
      g_string_append_printf (list, "%s%" G_GINT64_FORMAT, a == k->allowed ? "" : a[1] < 0 ? " or " : ", ", *a);
    }
    if (!ok)
      ytree_error (error, PS_ERROR_DATA, n, "%s must be %s (got %" G_GINT64_FORMAT ")", k->path, list->str, v);
    g_string_free (list, TRUE);
    if (!ok)
      return FALSE;
  }
  /* The range tests come first in the condition: they rule out v <= 0 before v & (v - 1), which is no
   * power-of-two test there (and overflows at INT64_MIN). One message then states both rules. */
  if (k->pow2 && ((double) v < k->min || (double) v > k->max || (v & (v - 1)) != 0)) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a power of two from %.0f to %.0f (got %" G_GINT64_FORMAT ")",
                 k->path, k->min, k->max, v);
    return FALSE;
  }
  if ((double) v < k->min || (double) v > k->max) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be between %.0f and %.0f (got %" G_GINT64_FORMAT ")", k->path,
                 k->min, k->max, v);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* Doubles reject NaN and infinities: every model parameter is a finite physical quantity. */
static gboolean
convert_double (const KeyDef *k, const YNode *n, double *out, GError **error)
{
  if (!want_scalar (k, n, "a number", error))
    return FALSE;
  /* g_ascii_strtod, not strtod: '.' is the decimal point whatever the locale, so a config means the same for
   * every user and every caller (main() sets LC_NUMERIC, but the library does not rely on it). 1e400 overflows
   * to infinity and fails isfinite(); YAML's own .inf and .nan are no numbers to strtod and fail the end test. */
  char *end = NULL;
  double v = g_ascii_strtod (n->value, &end);
  if (end == n->value || *end != '\0' || !isfinite (v)) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a number, got '%s'", k->path, n->value);
    return FALSE;
  }
  if (v < k->min || v > k->max) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be between %g and %g (got %g)", k->path, k->min, k->max, v);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* A mode list may be one word or a sequence; "all" expands to every mode. The modes form a set: a repeat, or
 * "all" beside others, just ORs in bits already there. An empty list is refused, which lets 0 mean "no mode
 * given" elsewhere (PsCliRun.modes). */
static gboolean
convert_modes (const KeyDef *k, const YNode *n, unsigned *out, GError **error)
{
  const YNode *one = n;
  guint count = 1;
  if (n->kind == YNODE_SEQ) {
    count = n->items->len;
    if (count == 0) {
      ytree_error (error, PS_ERROR_DATA, n, "%s lists no mode", k->path);
      return FALSE;
    }
  } else if (n->kind != YNODE_SCALAR) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a mode or a list of modes, not %s", k->path,
                 ytree_kind_name (n->kind));
    return FALSE;
  }
  unsigned mask = 0;
  for (guint i = 0; i < count; i++) {
    if (n->kind == YNODE_SEQ)
      one = n->items->pdata[i];
    /* A nested list or mapping as an item is an unknown mode too, with no text to quote. */
    unsigned m = one->kind == YNODE_SCALAR ? ps_mode_parse (one->value) : 0;
    if (!m) {
      ytree_error (error, PS_ERROR_DATA, one, "%s: unknown mode%s%s (expected read, write, simultaneous, all, pio_read "
                   "or pio_write)",
                   k->path, one->kind == YNODE_SCALAR ? " " : "", one->kind == YNODE_SCALAR ? one->value : "");
      return FALSE;
    }
    mask |= m;
  }
  *out = mask;
  return TRUE;
}

/* A set of words from k->words: one word or a sequence, stored as a mask (bit i for words[i]). A repeat is
 * harmless; an empty list is refused, as an empty set would say nothing. */
static gboolean
convert_words (const KeyDef *k, const YNode *n, unsigned *out, GError **error)
{
  if (n->kind == YNODE_SEQ && n->items->len == 0) {
    ytree_error (error, PS_ERROR_DATA, n, "%s lists nothing", k->path);
    return FALSE;
  }
  if (n->kind != YNODE_SEQ && n->kind != YNODE_SCALAR) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a word or a list of words, not %s", k->path,
                 ytree_kind_name (n->kind));
    return FALSE;
  }
  guint count = n->kind == YNODE_SEQ ? n->items->len : 1;
  unsigned mask = 0;
  for (guint i = 0; i < count; i++) {
    const YNode *one = n->kind == YNODE_SEQ ? n->items->pdata[i] : n;
    int found = -1;
    for (int w = 0; one->kind == YNODE_SCALAR && k->words[w] && found < 0; w++)
      if (strcmp (k->words[w], one->value) == 0)
        found = w;
    if (found < 0) {
      g_autofree char *list = g_strjoinv (", ", (char **) k->words);
      ytree_error (error, PS_ERROR_DATA, one, "%s: unknown word%s%s (expected %s)", k->path,
                   one->kind == YNODE_SCALAR ? " " : "", one->kind == YNODE_SCALAR ? one->value : "", list);
      return FALSE;
    }
    mask |= 1u << found;
  }
  *out = mask;
  return TRUE;
}

/* A table of number pairs: a sequence of two-item sequences of numbers within the key's range (values) and
 * [0, 1] (probabilities). The order rules belong to the distribution and are checked with its kind
 * (check_dists()). */
static gboolean
convert_points (const KeyDef *k, const YNode *n, PsPoints *out, GError **error)
{
  if (n->kind != YNODE_SEQ) {
    ytree_error (error, PS_ERROR_DATA, n, "%s must be a list of [value, probability] pairs, not %s", k->path,
                 ytree_kind_name (n->kind));
    return FALSE;
  }
  guint count = n->items->len;
  g_autofree double *pairs = g_new0 (double, 2 * (count ? count : 1));
  for (guint i = 0; i < count; i++) {
    const YNode *item = n->items->pdata[i];
    if (item->kind != YNODE_SEQ || item->items->len != 2) {
      ytree_error (error, PS_ERROR_DATA, item, "%s: each item must be a pair [value, probability]", k->path);
      return FALSE;
    }
    for (guint c = 0; c < 2; c++) {
      const YNode *v = item->items->pdata[c];
      const KeyDef part = { .path = k->path, .type = K_DOUBLE, .min = c ? 0 : k->min, .max = c ? 1 : k->max };
      if (!convert_double (&part, v, &pairs[2 * i + c], error))
        return FALSE;
    }
  }
  g_free (out->pairs); /* the default's, if any: defaults are converted first */
  out->n = count;
  out->pairs = g_steal_pointer (&pairs);
  return TRUE;
}

/* The one converter behind file values, --set values and defaults. It writes through `field` with the C type
 * that KeyDef.offset documents for each KeyType; a field of another type would be written at the wrong size,
 * silently. */
static gboolean
convert_value (const KeyDef *k, const YNode *n, PsConfig *cfg, GError **error)
{
  void *field = (char *) cfg + k->offset;
  switch (k->type) {
  case K_INT:
    return convert_int (k, n, field, error);
  case K_DOUBLE:
    return convert_double (k, n, field, error);
  case K_BOOL:
    if (!want_scalar (k, n, "true or false", error))
      return FALSE;
    /* Only lower-case true and false: YAML 1.1's yes/no/on/off/y/n are refused, as they turn answers and country
     * codes (NO) into booleans by surprise, and YAML 1.1 and 1.2 readers disagree on them. */
    if (strcmp (n->value, "true") == 0 || strcmp (n->value, "false") == 0) {
      *(bool *) field = n->value[0] == 't';
      return TRUE;
    }
    ytree_error (error, PS_ERROR_DATA, n, "%s must be true or false, got '%s'", k->path, n->value);
    return FALSE;
  case K_STRING:
    if (!want_scalar (k, n, "a string", error))
      return FALSE;
    /* Strings are labels printed inside table rows, CSV cells and Markdown tables: a line break or other control
     * character would split or corrupt the row, so it is refused here rather than escaped in every format. */
    for (const char *c = n->value; *c; c++)
      if ((unsigned char) *c < 0x20 || *c == 0x7f) {
        ytree_error (error, PS_ERROR_DATA, n, "%s must be one line of printable text (found control character "
                     "0x%02x)", k->path, (unsigned char) *c);
        return FALSE;
      }
    g_free (*(char **) field); /* the default's copy, if any: defaults are converted first */
    *(char **) field = g_strdup (n->value);
    return TRUE;
  case K_MODES:
    return convert_modes (k, n, field, error);
  case K_WORDS:
    return convert_words (k, n, field, error);
  case K_ENUM:
    if (!want_scalar (k, n, "a word", error))
      return FALSE;
    /* Case-sensitive, like keys: "Priority" is refused with the list of words rather than guessed. */
    for (int i = 0; k->words[i]; i++)
      if (strcmp (k->words[i], n->value) == 0) {
        *(int *) field = i;
        return TRUE;
      }
    {
      g_autofree char *list = g_strjoinv (", ", (char **) k->words);
      ytree_error (error, PS_ERROR_DATA, n, "%s must be one of %s (got '%s')", k->path, list, n->value);
    }
    return FALSE;
  case K_POINTS:
    return convert_points (k, n, field, error);
  }
  /* No default: label, so -Wswitch (an error with werror) flags a KeyType added without a converter. */
  return FALSE;
}

static const char *type_name (const KeyDef *k);

/* --- assumptions ----------------------------------------------------------------------------------------- */

/* One end of a range, through the key's own converter: the same bounds, power-of-two and allowed-list rules as
 * the value, so every sample drawn between the ends is a value the key could be given. */
static gboolean
range_end (const KeyDef *k, const YNode *n, double *out, GError **error)
{
  if (k->type == K_INT) {
    int64_t v;
    if (!convert_int (k, n, &v, error))
      return FALSE;
    *out = (double) v;
    return TRUE;
  }
  return convert_double (k, n, out, error);
}

/* A file's assumptions: section, checked on its own (before any merge, so errors point into the file): a mapping
 * of known numeric keys to [LO, HI] with LO < HI. */
static gboolean
check_assumptions (const YNode *a, GError **error)
{
  if (a->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, a, "assumptions must be a mapping of KEY: [LO, HI], not %s",
                 ytree_kind_name (a->kind));
    return FALSE;
  }
  for (guint i = 0; i < a->keys->len; i++) {
    const YNode *kn = a->keys->pdata[i], *vn = a->items->pdata[i];
    const KeyDef *k = find_key (kn->value);
    if (!k) {
      g_autofree char *hint = suggest_path (kn->value);
      ytree_error (error, PS_ERROR_DATA, kn, "assumptions: unknown key '%s'%s%s%s", kn->value,
                   hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
      return FALSE;
    }
    if (k->type != K_INT && k->type != K_DOUBLE) {
      ytree_error (error, PS_ERROR_DATA, kn, "assumptions: '%s' is not numeric (%s): only a number has a range",
                   kn->value, k->type == K_ENUM || k->type == K_WORDS ? "a choice of words" : type_name (k));
      return FALSE;
    }
    if (vn->kind != YNODE_SEQ || vn->items->len != 2) {
      ytree_error (error, PS_ERROR_DATA, vn, "assumptions: the range of %s must be [LO, HI]", kn->value);
      return FALSE;
    }
    double lo, hi;
    if (!range_end (k, vn->items->pdata[0], &lo, error) || !range_end (k, vn->items->pdata[1], &hi, error))
      return FALSE;
    if (!(lo < hi)) {
      ytree_error (error, PS_ERROR_DATA, vn, "assumptions: the range of %s must have LO < HI (got [%g, %g])",
                   kn->value, lo, hi);
      return FALSE;
    }
  }
  return TRUE;
}

/* TRUE if the tree `map` gives a value at dotted `path`. */
static gboolean
tree_has (const YNode *map, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i]; i++) {
    if (!map || map->kind != YNODE_MAP)
      return FALSE;
    map = ytree_map_get (map, parts[i]);
  }
  return map != NULL;
}

/* Before `file` goes over `base` (what its includes gave): a range belongs to the file that sets the value, so a
 * file that sets a key again without a range of its own (a sourced value over an assumed one) drops the earlier
 * range. A range it gives replaces the earlier one when the two merge. */
static gboolean
merge_assumptions (YNode *base, const YNode *file, GError **error)
{
  const YNode *own = ytree_map_get (file, "assumptions");
  if (own && !check_assumptions (own, error))
    return FALSE;
  YNode *earlier = ytree_map_get (base, "assumptions");
  for (guint i = earlier ? earlier->keys->len : 0; i-- > 0;) {
    const char *key = ((const YNode *) earlier->keys->pdata[i])->value;
    if (tree_has (file, key) && !(own && ytree_map_get (own, key))) {
      g_autofree char *k = g_strdup (key);
      ytree_free (ytree_map_take (earlier, k));
    }
  }
  return TRUE;
}

/* After the walk: keep the ranges of keys no --set replaced, each of which must contain its value. */
static gboolean
take_assumptions (PsConfig *cfg, const YNode *a, GError **error)
{
  if (!a)
    return TRUE;
  cfg->assumptions = g_new0 (PsAssumption, a->keys->len);
  for (guint i = 0; i < a->keys->len; i++) {
    const YNode *kn = a->keys->pdata[i], *vn = a->items->pdata[i];
    const KeyDef *k = find_key (kn->value);
    if (origin_of (cfg, (size_t) (k - keys))->from == PS_FROM_SET)
      continue;
    double lo, hi, v = ps_config_number (cfg, k->path);
    range_end (k, vn->items->pdata[0], &lo, NULL);
    range_end (k, vn->items->pdata[1], &hi, NULL);
    if (v < lo || v > hi) {
      ytree_error (error, PS_ERROR_DATA, vn, "assumptions: the range [%g, %g] of %s does not contain its value %g",
                   lo, hi, k->path, v);
      return FALSE;
    }
    cfg->assumptions[cfg->n_assumptions++] = (PsAssumption) {
      g_strdup (k->path), lo, hi, g_strdup_printf ("%s:%d:%d", vn->origin, vn->line, vn->col) };
  }
  return TRUE;
}

double
ps_config_number (const PsConfig *cfg, const char *path)
{
  const KeyDef *k = find_key (path);
  const void *field = k ? (const char *) cfg + k->offset : NULL;
  return !k ? NAN : k->type == K_INT ? (double) *(const int64_t *) field
                  : k->type == K_DOUBLE ? *(const double *) field : NAN;
}

gboolean
ps_config_key_numeric (const char *path)
{
  const KeyDef *k = find_key (path);
  return k && (k->type == K_INT || k->type == K_DOUBLE);
}

gboolean
ps_config_key_integer (const char *path)
{
  const KeyDef *k = find_key (path);
  return k && k->type == K_INT;
}

double
ps_config_snap (const char *path, double v)
{
  const KeyDef *k = find_key (path);
  if (!k || k->type != K_INT)
    return v;
  double best = round (v);
  /* A power of two is chosen in log space: between 64 and 128, 90 is nearer 64 by ratio. */
  if (k->pow2)
    best = exp2 (round (log2 (MAX (v, 1))));
  for (const int64_t *a = k->allowed; a && *a >= 0; a++)
    if (a == k->allowed || fabs ((double) *a - v) < fabs (best - v))
      best = (double) *a;
  return MIN (MAX (best, k->min), k->max);
}

char *
ps_config_set_text (const char *path, double v)
{
  v = ps_config_snap (path, v);
  /* 17 significant digits give a double back exactly; an integer key's value is whole. */
  if (ps_config_key_integer (path))
    return g_strdup_printf ("%s=%" G_GINT64_FORMAT, path, (int64_t) v);
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("%s=%s", path, g_ascii_formatd (num, sizeof num, "%.17g", v));
}

/* --- loading ------------------------------------------------------------------------------------------- */

/* Include resolution: depth-first, included files merged in order, then the including file on top. The stack
 * holds canonical paths of the files being loaded, which is what detects cycles through different spellings. */
static YNode *load_with_includes (const char *path, GPtrArray *stack, GError **error);

/* One include entry. A relative path is taken from the including file's directory, not the working directory,
 * so a config loads the same from anywhere (configs/ rows include their hosts/, families/ and benchmarks/
 * fragments this way). An empty path is refused: it would name the including file's own directory. */
static gboolean
apply_include (YNode *base, const YNode *inc, const char *including, GPtrArray *stack, GError **error)
{
  if (inc->kind != YNODE_SCALAR || inc->value[0] == '\0') {
    ytree_error (error, PS_ERROR_DATA, inc, "include must be a file path or a list of file paths");
    return FALSE;
  }
  g_autofree char *dir = g_path_get_dirname (including);
  g_autofree char *path = g_path_is_absolute (inc->value) ? g_strdup (inc->value)
                                                            : g_build_filename (dir, inc->value, NULL);
  /* Tested here, not left to ytree_load_file(), so the error is located at the include entry (still exit 66)
   * and says whether the file is missing or is a directory. */
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    ytree_error (error, PS_ERROR_NOINPUT, inc, "included file '%s' %s", path,
                 g_file_test (path, G_FILE_TEST_EXISTS) ? "is not a regular file" : "does not exist");
    return FALSE;
  }
  /* Should realpath() fail (say, a component removed meanwhile), this entry gets no cycle check; the depth
   * limit in load_with_includes() is what still ends a loop. */
  g_autofree char *real = realpath (path, NULL);
  for (guint i = 0; real && i < stack->len; i++) {
    if (strcmp (stack->pdata[i], real) == 0) {
      ytree_error (error, PS_ERROR_DATA, inc, "include cycle: '%s' includes itself through '%s'", including, path);
      return FALSE;
    }
  }
  g_autoptr (GError) e = NULL;
  YNode *sub = load_with_includes (path, stack, &e);
  if (!sub) {
    /* A file that exists but cannot be read (permissions, an I/O error, a /proc file with nothing to give) has no
     * text to point into: the error goes to the include entry that named it, keeping its code. */
    if (e && e->domain == PS_ERROR && !ps_error_file (e))
      ytree_error (error, (PsErrorCode) e->code, inc, "included file %s", ps_error_text (e));
    else
      g_propagate_error (error, g_steal_pointer (&e));
    return FALSE;
  }
  ytree_merge (base, sub);
  return TRUE;
}

static YNode *
load_with_includes (const char *path, GPtrArray *stack, GError **error)
{
  g_autoptr (YNode) tree = ytree_load_file (path, error);
  /* ytree returns an empty document as NULL without an error and leaves the verdict to us: a config (or an
   * included fragment) with no keys is refused, at 1:1 since there is nothing else to point at. */
  if (!tree) {
    if (error && !*error)
      ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "empty file: a config is a mapping of keys");
    return NULL;
  }
  if (tree->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, tree, "a config must be a mapping of keys, not %s",
                 ytree_kind_name (tree->kind));
    return NULL;
  }
  /* A bound beside the cycle check: 16 files deep is far beyond any real config, and it ends any loop the
   * cycle check cannot see (see apply_include()). */
  if (stack->len >= 16) {
    ytree_error (error, PS_ERROR_DATA, tree, "includes nested more than 16 deep");
    return NULL;
  }
  /* Includes merge, in order, into an empty map, and this file's own keys go on top: the including file always
   * wins, however its includes are ordered. `include` itself is taken out, so the key walk never sees it. */
  g_autoptr (YNode) base = ytree_map_new (path, 1, 1);
  g_autoptr (YNode) inc = ytree_map_take (tree, "include");
  if (inc) {
    char *real = realpath (path, NULL);
    g_ptr_array_add (stack, real ? real : g_strdup (path));
    gboolean ok = TRUE;
    if (inc->kind == YNODE_SEQ) {
      for (guint i = 0; ok && i < inc->items->len; i++)
        ok = apply_include (base, inc->items->pdata[i], path, stack, error);
    } else {
      ok = apply_include (base, inc, path, stack, error);
    }
    /* The stack is the chain being loaded, not every file seen: a fragment included twice along different
     * branches (a diamond) is fine; only a file inside its own chain is a cycle. */
    g_ptr_array_remove_index (stack, stack->len - 1);
    if (!ok)
      return NULL;
  }
  if (!merge_assumptions (base, tree, error))
    return NULL;
  ytree_merge (base, g_steal_pointer (&tree));
  return g_steal_pointer (&base);
}

/* Graft the VALUE of `set` (KEY=VALUE, its '=' at `eq`) at `path` below `root`: the value is YAML, so lists and
 * mappings work; a mapping merges into the section it names, as an include would. `path` is not checked here. */
static gboolean
graft_set (YNode *root, const char *set, const char *eq, const char *path, GError **error)
{
  /* The origin reads exactly "--set KEY=VALUE", which is how mark_set() tells which --set an error lies in.
   * Columns count within KEY=VALUE: the key is at 1. */
  g_autofree char *origin = g_strdup_printf ("--set %s", set);
  const YNode key_pos = { .origin = origin, .line = 1, .col = 1 };
  /* col_offset is the length of "KEY=", so the value's columns count within KEY=VALUE as the key's do. An empty
   * VALUE is an empty YAML document (NULL, no error): make it the empty scalar that `key:` gives in a file,
   * located just past the '='. */
  YNode *value = ytree_load_string (origin, eq + 1, (int) (eq - set) + 1, error);
  if (!value) {
    if (error && *error)
      return FALSE;
    value = ytree_scalar_new (origin, 1, (int) (eq - set) + 2, "");
  }
  /* Walk/create the sections leading to the leaf. */
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  YNode *map = root;
  for (guint i = 0; parts[i + 1]; i++) {
    YNode *next = ytree_map_get (map, parts[i]);
    if (!next) { /* a section the files lack, located at the --set so errors inside it point there */
      next = ytree_map_new (origin, 1, 1);
      ytree_map_set (map, parts[i], next, &key_pos);
    } else if (next->kind != YNODE_MAP) { /* a scalar or list there: `link: 5` in a file, or an earlier --set */
      ytree_error (error, PS_ERROR_DATA, &key_pos, "cannot set '%s': '%s' is not a mapping", path, parts[i]);
      ytree_free (value);
      return FALSE;
    }
    map = next;
  }
  const char *leaf = parts[g_strv_length (parts) - 1];
  YNode *old = ytree_map_get (map, leaf);
  if (old && old->kind == YNODE_MAP && value->kind == YNODE_MAP)
    ytree_merge (old, value);
  else
    ytree_map_set (map, leaf, value, &key_pos);
  return TRUE;
}

/* Graft one --set KEY=VALUE into the merged tree, KEY a key of the table or a section of it, so
 * `--set 'link={lanes: 4}'` keeps the other keys. */
static gboolean
apply_set (YNode *root, const char *set, GError **error)
{
  const char *eq = strchr (set, '=');
  /* A --set that is not KEY=VALUE at all is a command-line mistake (64), not bad config data (65): config.h. */
  if (!eq || eq == set) {
    ps_error_plain (error, PS_ERROR_USAGE, "--set %s: expected KEY.PATH=VALUE", set);
    return FALSE;
  }
  g_autofree char *origin = g_strdup_printf ("--set %s", set);
  g_autofree char *path = g_strndup (set, (gsize) (eq - set));
  const YNode key_pos = { .origin = origin, .line = 1, .col = 1 };
  /* The key is checked before its value is parsed, so a misspelt key is reported as such and not as whatever
   * its value happens to break. First the leaf is matched within its section; if nothing is close, the section
   * may be misspelt too and the whole path is matched. */
  if (!find_key (path) && !is_section (path)) {
    const char *dot = strrchr (path, '.');
    g_autofree char *prefix = dot ? g_strndup (path, (gsize) (dot - path)) : g_strdup ("");
    g_autofree char *hint = suggest (prefix, dot ? dot + 1 : path);
    g_autofree char *full = hint ? (*prefix ? g_strconcat (prefix, ".", hint, NULL) : g_strdup (hint))
                                 : suggest_path (path);
    if (full)
      ytree_error (error, PS_ERROR_DATA, &key_pos, "unknown key '%s' (did you mean '%s'?)", path, full);
    else
      ytree_error (error, PS_ERROR_DATA, &key_pos, "unknown key '%s'", path);
    return FALSE;
  }
  return graft_set (root, set, eq, path, error);
}

gboolean
ps_config_is_element_set (const char *set)
{
  return g_str_has_prefix (set, "nodes.") || g_str_has_prefix (set, "links.") || g_str_has_prefix (set, "flows.");
}

/* The name a link entry goes by: its name:, else "A-B" from its ends (topology.c names it the same way). */
static char *
link_entry_name (const YNode *e)
{
  if (e->kind == YNODE_MAP) {
    const YNode *n = ytree_map_get (e, "name"), *a = ytree_map_get (e, "a"), *b = ytree_map_get (e, "b");
    if (n && n->kind == YNODE_SCALAR)
      return g_strdup (n->value);
    if (a && b && a->kind == YNODE_SCALAR && b->kind == YNODE_SCALAR)
      return g_strdup_printf ("%s-%s", a->value, b->value);
  } else if (e->kind == YNODE_SEQ && e->items->len == 2) {
    const YNode *a = e->items->pdata[0], *b = e->items->pdata[1];
    if (a->kind == YNODE_SCALAR && b->kind == YNODE_SCALAR)
      return g_strdup_printf ("%s-%s", a->value, b->value);
  }
  return NULL;
}

/* One --set nodes.NAME.KEY=V, links.NAME.KEY=V or flows.NAME.KEY=V: KEY=V grafted into that element of the
 * topology: or flows: section, before either is parsed, so the element's own checks (topology.c) see the value
 * as if the file gave it, located at the --set. A link written [A, B] becomes {a: A, b: B} to take a key. */
static gboolean
apply_element_set (YNode *topology, YNode *flows, const char *set, GError **error)
{
  g_autofree char *origin = g_strdup_printf ("--set %s", set);
  const YNode key_pos = { .origin = origin, .line = 1, .col = 1 };
  const char *eq = strchr (set, '=');
  const char *dot1 = strchr (set, '.');
  const char *dot2 = dot1 && (!eq || dot1 < eq) ? strchr (dot1 + 1, '.') : NULL;
  if (!eq || !dot2 || dot2 > eq || dot2 == dot1 + 1 || dot2 + 1 == eq) {
    ps_error_plain (error, PS_ERROR_USAGE, "--set %s: expected nodes.NAME.KEY=VALUE, links.NAME.KEY=VALUE or "
                    "flows.NAME.KEY=VALUE", set);
    return FALSE;
  }
  g_autofree char *kind = g_strndup (set, (gsize) (dot1 - set));
  g_autofree char *name = g_strndup (dot1 + 1, (gsize) (dot2 - dot1 - 1));
  g_autofree char *path = g_strndup (dot2 + 1, (gsize) (eq - dot2 - 1));
  gboolean node = strcmp (kind, "nodes") == 0, flow = strcmp (kind, "flows") == 0;
  YNode *list = flow ? flows : topology ? ytree_map_get (topology, node ? "nodes" : "links") : NULL;
  if (!list) {
    ytree_error (error, PS_ERROR_DATA, &key_pos, "'%s.%s': this config has no %s: section (nodes., links. and "
                 "flows. address the elements of a fabric)", kind, name, flow ? "flows" : "topology");
    return FALSE;
  }
  YNode *target = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  if (node && list->kind == YNODE_MAP) {
    for (guint i = 0; i < list->keys->len; i++)
      g_ptr_array_add (names, g_strdup (((const YNode *) list->keys->pdata[i])->value));
    target = ytree_map_get (list, name);
  } else if (!node && list->kind == YNODE_SEQ) {
    for (guint i = 0; i < list->items->len; i++) {
      YNode *e = list->items->pdata[i];
      char *n = NULL;
      if (flow && e->kind == YNODE_MAP) {
        const YNode *nn = ytree_map_get (e, "name");
        n = nn && nn->kind == YNODE_SCALAR ? g_strdup (nn->value) : NULL;
      } else if (!flow)
        n = link_entry_name (e);
      if (!n)
        continue;
      if (!target && strcmp (n, name) == 0)
        target = e;
      g_ptr_array_add (names, n);
    }
  }
  if (!target) {
    g_ptr_array_add (names, NULL);
    const char *hint = ps_closest ((const char *const *) names->pdata, name, 3);
    ytree_error (error, PS_ERROR_DATA, &key_pos, "no %s named '%s' in this config%s%s%s", node ? "node" : flow ? "flow"
                 : "link", name, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    return FALSE;
  }
  if (target->kind == YNODE_SEQ) { /* [A, B]: the same link as {a: A, b: B} */
    YNode *m = ytree_map_new (target->origin, target->line, target->col);
    ytree_map_set (m, "a", ytree_copy (target->items->pdata[0]), target->items->pdata[0]);
    ytree_map_set (m, "b", ytree_copy (target->items->pdata[1]), target->items->pdata[1]);
    for (guint i = 0; i < list->items->len; i++)
      if (list->items->pdata[i] == target) {
        ytree_free (target);
        list->items->pdata[i] = m;
      }
    target = m;
  }
  if (target->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, &key_pos, "cannot set '%s' in %s '%s': it is not a mapping", path, kind, name);
    return FALSE;
  }
  return graft_set (target, set, eq, path, error);
}

/* seen maps the table's own path strings (static, so never freed) to the node each value came from: combination
 * checks use it to point at a value, and ps_config_load() to find required keys that never appeared. */
typedef struct {
  PsConfig *cfg;
  GHashTable *seen; /* key path -> value node (not owned) */
} Walk;

/* Pass 3: every key is either a leaf in the table (converted) or a section (recursed into); anything else is
 * unknown, reported with the closest name at the same level. */
static gboolean
walk_map (Walk *w, const YNode *map, const char *prefix, GError **error)
{
  for (guint i = 0; i < map->keys->len; i++) {
    const YNode *kn = map->keys->pdata[i];
    const YNode *vn = map->items->pdata[i];
    g_autofree char *path = *prefix ? g_strconcat (prefix, ".", kn->value, NULL) : g_strdup (kn->value);
    const KeyDef *k = find_key (path);
    if (k) {
      if (!convert_value (k, vn, w->cfg, error))
        return FALSE;
      g_hash_table_insert (w->seen, (gpointer) k->path, (gpointer) vn);
    } else if (is_section (path)) {
      /* A section given as a scalar or list (`link: 5`, or `link:` left empty) is an error of its own: skipping
       * it would let every key under it take its default without a word. */
      if (vn->kind != YNODE_MAP) {
        ytree_error (error, PS_ERROR_DATA, vn, "'%s' must be a mapping of keys, not %s", path,
                     ytree_kind_name (vn->kind));
        return FALSE;
      }
      if (!walk_map (w, vn, path, error))
        return FALSE;
    } else {
      /* The hint is sought at the same level only, so a typo under link. never suggests another section's key. */
      g_autofree char *hint = suggest (prefix, kn->value);
      /* At the top, the fabric's sections are candidates too (`flow:` for `flows:`). */
      if (!hint && !*prefix)
        hint = g_strdup (ps_closest ((const char *const[]) { "topology", "flows", NULL }, kn->value, 3));
      if (hint)
        ytree_error (error, PS_ERROR_DATA, kn, "unknown key '%s' (did you mean '%s%s%s'?)", path, prefix,
                     *prefix ? "." : "", hint);
      else
        ytree_error (error, PS_ERROR_DATA, kn, "unknown key '%s'", path);
      return FALSE;
    }
  }
  return TRUE;
}

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
 * fetch would ever be due. A channel's buffer is 1 GB / dma.channels (models/system.c's memory map). The
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

/* A distribution's parameters for its kind (models/dist.h makes the same checks, but can name no key): uniform
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
                   dist_words[d->kind], reads);
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

/* Checks that need several keys; each points at the node whose value makes the combination impossible.
 * They run once every value is converted, since the keys involved may come from different files, a --set or
 * the table. A value left at its default has no node (`at` is NULL): the error then points at the config's 1:1. */
static gboolean
check_combinations (Walk *w, const YNode *root, GError **error)
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
  if (!check_credit_minimum (w, root, "host.rx_credits", &c->host.rx_credits, error)
      || !check_credit_minimum (w, root, "endpoint.rx_credits", &c->endpoint.rx_credits, error)
      || !check_credit_minimum (w, root, "switch.rx_credits", &c->sw.rx_credits, error))
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
  if (c->endpoint.straddle && c->endpoint.datapath_bits < 512) {
    at = g_hash_table_lookup (w->seen, "endpoint.straddle");
    ytree_error (error, PS_ERROR_DATA, at ? at : root,
                 "endpoint.straddle needs a 512- or 1024-bit datapath (endpoint.datapath_bits is %" G_GINT64_FORMAT
                 "): a narrower beat holds one 256-bit segment at most", c->endpoint.datapath_bits);
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
  /* 10-bit tags (768, spec §2.2.6.2) work on any link and with the DMA; more need flit mode's 14-bit tags, which
   * only the stream source uses (the chaining DMA's tag table holds 10-bit tags, dma_chain.h). */
  if (c->endpoint.tags > 768 && (!flit || c->benchmark.workload != PS_WORKLOAD_STREAM)) {
    at = g_hash_table_lookup (w->seen, "endpoint.tags");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "endpoint.tags %" G_GINT64_FORMAT " needs 14-bit tags: flit "
                "mode (Gen6 or link.flit_mode) and the stream workload (the chaining DMA keeps 10-bit tags, 768 "
                "at most)", c->endpoint.tags);
    return FALSE;
  }
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
  if (c->benchmark.workload == PS_WORKLOAD_MICROBENCH && c->microbench.transfer_bytes % 4) {
    at = g_hash_table_lookup (w->seen, "microbench.transfer_bytes");
    ytree_error (error, PS_ERROR_DATA, at ? at : root, "microbench.transfer_bytes (%" G_GINT64_FORMAT ") must be a "
                 "multiple of 4: a DMA moves whole DWs", c->microbench.transfer_bytes);
    return FALSE;
  }
  if (c->benchmark.workload == PS_WORKLOAD_MICROBENCH && c->microbench.transfer_bytes > c->microbench.window_bytes) {
    at = given_node (w, root, (const char *const[]) { "microbench.window_bytes", "microbench.transfer_bytes", NULL });
    ytree_error (error, PS_ERROR_DATA, at, "microbench.window_bytes (%" G_GINT64_FORMAT ") is smaller than "
                 "microbench.transfer_bytes (%" G_GINT64_FORMAT "): each DMA lies inside the window",
                 c->microbench.window_bytes, c->microbench.transfer_bytes);
    return FALSE;
  }
  return check_dma (w, root, error);
}

/* Defaults go through the same converter as file values, so a bad default aborts at start-up in every test. */
static void
set_defaults (PsConfig *cfg)
{
  /* GLib makes its C locale on a process's first number parse; a thread that waits for another to make it returns
   * with errno set, and g_ascii_string_to_signed() takes that errno for a malformed number. Make the locale once,
   * here, before any converter runs, so concurrent loads (validate, sweep workers) never wait inside a parse. */
  static gsize c_locale_made;
  if (g_once_init_enter (&c_locale_made)) {
    (void) g_ascii_strtoll ("0", NULL, 10);
    g_once_init_leave (&c_locale_made, 1);
  }
  /* Every double starts as NaN, which is how an absent published figure reads (config.h); every other double
   * has a default that overwrites it. */
  for (size_t i = 0; i < N_KEYS; i++) {
    const KeyDef *k = &keys[i];
    if (k->type == K_DOUBLE)
      *(double *) ((char *) cfg + k->offset) = NAN;
    if (!k->dflt)
      continue;
    g_autoptr (GError) e = NULL;
    /* An empty default ("" for name) is an empty YAML document, NULL without an error: stand in the empty
     * scalar that `name:` gives in a file. */
    g_autoptr (YNode) n = ytree_load_string ("<default>", k->dflt, 0, &e);
    if (!n)
      n = ytree_scalar_new ("<default>", 1, 1, "");
    if (!convert_value (k, n, cfg, &e))
      g_error ("default of %s is invalid: %s", k->path, e->message);
  }
}

/* Every node a --set made has the origin apply_set() gives it; of two identical --sets the later is the one whose
 * value stood. */
void
ps_config_mark_set (GError **error, const char *const *sets)
{
  const char *file = error && *error ? ps_error_file (*error) : NULL;
  if (!file || !g_str_has_prefix (file, "--set "))
    return;
  for (int i = (int) g_strv_length ((char **) sets) - 1; i >= 0; i--)
    if (strcmp (file + strlen ("--set "), sets[i]) == 0) {
      ps_error_mark_set (*error, i);
      return;
    }
}

/* Each key's origin from the node its value came from: a node keeps the file (or "--set …" text) it was read
 * from through every merge, so the top file, an include and a --set tell themselves apart by that name alone. */
static void
record_origins (PsConfig *cfg, GHashTable *seen)
{
  cfg->origins = g_new0 (PsKeyOrigin, N_KEYS);
  for (size_t i = 0; i < N_KEYS; i++) {
    PsKeyOrigin *o = &cfg->origins[i];
    const YNode *n = g_hash_table_lookup (seen, keys[i].path);
    if (!n) {
      o->from = keys[i].dflt ? PS_FROM_DEFAULT : PS_FROM_ABSENT;
    } else if (g_str_has_prefix (n->origin, "--set ")) {
      *o = (PsKeyOrigin) { .from = PS_FROM_SET, .at = g_strdup (n->origin), .file = g_strdup (n->origin), .line = 1,
                           .col = 1 };
    } else {
      *o = (PsKeyOrigin) { .from = strcmp (n->origin, cfg->path) == 0 ? PS_FROM_FILE : PS_FROM_INCLUDE,
                           .at = g_strdup_printf ("%s:%d:%d", n->origin, n->line, n->col),
                           .file = g_strdup (n->origin), .line = n->line, .col = n->col };
    }
  }
  cfg->set_changes = set_changes (cfg);
}

/* A datapath half not given follows the link (config.h): the table's fixed 64 bits at 125 MHz ran a Gen4 x16
 * link at 3% of its rate. The table's own defaults stay as the values `pciesim keys` shows for Gen1 x1. */
static void
apply_datapath_default (PsConfig *cfg)
{
  PsKeyOrigin *ob = &cfg->origins[find_key ("endpoint.datapath_bits") - keys];
  PsKeyOrigin *oc = &cfg->origins[find_key ("endpoint.clock_mhz") - keys];
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

static PsConfig *build (const char *path, YNode *root, const char *const *sets, GError **error);

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
  for (size_t i = 0; i < N_KEYS; i++) {
    if (origin_of (cfg, i)->from == PS_FROM_DEFAULT)
      continue;
    if (g_str_has_prefix (keys[i].path, "switch.") && !switches) {
      error_at_key (error, cfg, keys[i].path, "%s is set, but this config has no switch (a topology: node of type "
                    "switch): it would change nothing", keys[i].path);
      return FALSE;
    }
    if (g_str_has_prefix (keys[i].path, "fabric.") && !t) {
      error_at_key (error, cfg, keys[i].path, "%s is set, but this config has no topology: it would change "
                    "nothing", keys[i].path);
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

/* The three passes described at the top of the file; published.* keys may be absent, nothing else without a
 * default may. */
PsConfig *
ps_config_load_keys (const char *path, const char *const *sets, YNode **topology_out, YNode **flows_out,
                     GError **error)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (YNode) root = load_with_includes (path, stack, error);
  if (!root)
    return NULL;
  /* A scenario named where a config belongs would fail on its first scenario-only key ('description', 'base'):
   * say what the file is instead. base: and axes: are what every scenario has and no config key starts with. */
  for (const char *const *word = (const char *const[]) { "base", "axes", NULL }; *word; word++) {
    const YNode *k = ytree_map_key_node (root, *word);
    if (k) {
      ytree_error (error, PS_ERROR_DATA, k, "this is a scenario file ('%s:' is a scenario key): run it with "
                   "pciesim sweep %s", *word, path);
      return NULL;
    }
  }
  /* A fabric's sections are no keys: they name its nodes, links and flows (topology.h), each node's and link's
   * config derived from the rest of the file as it stands before the --sets. */
  g_autoptr (YNode) topology = ytree_map_take (root, "topology");
  g_autoptr (YNode) flows = ytree_map_take (root, "flows");
  g_autoptr (YNode) assumptions = ytree_map_take (root, "assumptions");
  g_autoptr (YNode) file = topology ? ytree_copy (root) : NULL;
  /* --set nodes.NAME.… (links., flows.) goes into that element, the others over the whole file. */
  g_autoptr (GPtrArray) file_sets = g_ptr_array_new ();
  for (const char *const *s = sets; s && *s; s++)
    if (!ps_config_is_element_set (*s))
      g_ptr_array_add (file_sets, (gpointer) *s);
    else if (!apply_element_set (topology, flows, *s, error))
      return NULL;
  g_ptr_array_add (file_sets, NULL);
  g_autoptr (PsConfig) cfg = build (path, root, (const char *const *) file_sets->pdata, error);
  if (!cfg || !take_assumptions (cfg, assumptions, error))
    return NULL;
  if (flows && !topology) {
    ytree_error (error, PS_ERROR_DATA, flows, "flows: needs a topology: section naming the nodes they run between");
    return NULL;
  }
  if (topology) {
    cfg->tree = g_steal_pointer (&file);
    cfg->sets = g_strdupv ((char **) file_sets->pdata);
  }
  *topology_out = g_steal_pointer (&topology);
  *flows_out = g_steal_pointer (&flows);
  return g_steal_pointer (&cfg);
}

PsConfig *
ps_config_derive (const PsConfig *base, const YNode *overlay, GError **error)
{
  /* The file's --sets are fabric-wide defaults: they go over the file, and a node's or link's own keys over them
   * (--set link.lanes=16 widens every link that does not give its own width). */
  g_autoptr (YNode) root = ytree_copy (base->tree);
  for (const char *const *s = (const char *const *) base->sets; s && *s; s++)
    if (!apply_set (root, *s, error))
      return NULL;
  if (overlay) {
    /* The overlay's own include: comes first and its keys over it, as in a file (load_with_includes()); the
     * whole then goes over the file's keys. */
    g_autoptr (YNode) top = ytree_copy (overlay);
    g_autoptr (YNode) inc = ytree_map_take (top, "include");
    g_autoptr (YNode) merged = ytree_map_new (overlay->origin, overlay->line, overlay->col);
    g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);
    char *real = realpath (base->path, NULL);
    g_ptr_array_add (stack, real ? real : g_strdup (base->path));
    for (guint i = 0; inc && i < (inc->kind == YNODE_SEQ ? inc->items->len : 1); i++)
      if (!apply_include (merged, inc->kind == YNODE_SEQ ? inc->items->pdata[i] : inc, inc->origin, stack, error))
        return NULL;
    ytree_merge (merged, g_steal_pointer (&top));
    /* A node's or link's own ranges are not kept: --ranges varies the file's, which reach every node as --sets. */
    ytree_free (ytree_map_take (merged, "assumptions"));
    ytree_merge (root, g_steal_pointer (&merged));
  }
  return build (base->path, root, NULL, error);
}

/* Passes 2 and 3 over a merged tree (`root`, modified): the --sets, the defaults, the walk, and the checks that
 * need the whole config. */
static PsConfig *
build (const char *path, YNode *root, const char *const *sets, GError **error)
{
  /* After every file and in the order given: the command line wins over any file, a later --set over an earlier. */
  for (const char *const *s = sets; s && *s; s++)
    if (!apply_set (root, *s, error))
      return NULL;

  /* Defaults first: the walk then overwrites exactly the keys the files and --sets give. */
  g_autoptr (PsConfig) cfg = g_new0 (PsConfig, 1);
  cfg->path = g_strdup (path);
  set_defaults (cfg);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  Walk w = { cfg, seen };
  if (!walk_map (&w, root, "", error))
    return NULL;

  /* A missing key has no node to point at: the error is at the named file's 1:1 and says what the key means. */
  for (size_t i = 0; i < N_KEYS; i++) {
    const KeyDef *k = &keys[i];
    if (!k->dflt && !g_str_has_prefix (k->path, "published.") && !g_hash_table_contains (seen, k->path)) {
      ps_error_located (error, PS_ERROR_DATA, path, 1, 1, "required key '%s' is missing (%s)", k->path, k->doc);
      return NULL;
    }
  }
  record_origins (cfg, seen);
  apply_datapath_default (cfg);
  /* The block's presence, not its figures, makes a config a validate row: a partial published: block is legal. */
  cfg->published.present = ytree_map_get (root, "published") != NULL;
  /* An empty name (the default) becomes the file's base name without its extension: configs/svgx_g1_x1.yaml
   * reports as svgx_g1_x1. */
  if (!cfg->name || !*cfg->name) {
    g_free (cfg->name);
    g_autofree char *base = g_path_get_basename (path);
    char *dot = strrchr (base, '.');
    cfg->name = dot ? g_strndup (base, (gsize) (dot - base)) : g_strdup (base);
  }
  if (!check_combinations (&w, root, error))
    return NULL;
  return g_steal_pointer (&cfg);
}

void
ps_config_free (PsConfig *cfg)
{
  if (!cfg)
    return;
  g_free (cfg->path);
  g_free (cfg->name);
  g_free (cfg->published.source);
  g_free (cfg->published.suspect_reason);
  for (size_t i = 0; cfg->origins && i < N_KEYS; i++) {
    g_free (cfg->origins[i].at);
    g_free (cfg->origins[i].file);
    g_free (cfg->origins[i].rule);
  }
  g_free (cfg->origins);
  g_free (cfg->set_changes);
  for (size_t i = 0; i < N_KEYS; i++)
    if (keys[i].type == K_POINTS)
      g_free (((PsPoints *) ((char *) cfg + keys[i].offset))->pairs);
  for (guint i = 0; i < cfg->n_assumptions; i++) {
    g_free (cfg->assumptions[i].key);
    g_free (cfg->assumptions[i].at);
  }
  g_free (cfg->assumptions);
  if (cfg->topology && cfg->topology_free)
    cfg->topology_free (cfg->topology);
  ytree_free (cfg->tree);
  g_strfreev (cfg->sets);
  g_free (cfg);
}

/* Human-readable type for `pciesim keys`. */
static const char *
type_name (const KeyDef *k)
{
  switch (k->type) {
  case K_INT:
    return k->pow2 ? "power of two" : k->allowed ? "one of" : "integer";
  case K_DOUBLE:
    return "number";
  case K_BOOL:
    return "boolean";
  case K_STRING:
    return "string";
  case K_MODES:
    return "modes";
  case K_ENUM:
    return "one of";
  case K_WORDS:
    return "list of";
  case K_POINTS:
    return "table";
  }
  return "?";
}

static gint
cmp_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GHashTable *
ps_config_shipped_ranges (const char *dir)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  const char *const subdirs[] = { "", "hosts", "families", "benchmarks", NULL };
  for (const char *const *sub = subdirs; *sub; sub++) {
    g_autofree char *d = g_build_filename (dir, *sub, NULL);
    g_autoptr (GDir) gd = g_dir_open (d, 0, NULL);
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    for (const char *n; gd && (n = g_dir_read_name (gd));)
      if (g_str_has_suffix (n, ".yaml"))
        g_ptr_array_add (names, g_strdup (n));
    /* Directory order is the filesystem's: sorted, the list reads the same everywhere (and in the README). */
    g_ptr_array_sort (names, cmp_name);
    for (guint i = 0; i < names->len; i++) {
      g_autofree char *path = g_build_filename (d, names->pdata[i], NULL);
      g_autoptr (YNode) tree = ytree_load_file (path, NULL);
      const YNode *a = tree && tree->kind == YNODE_MAP ? ytree_map_get (tree, "assumptions") : NULL;
      if (!a || !check_assumptions (a, NULL))
        continue;
      for (guint k = 0; k < a->keys->len; k++) {
        const YNode *kn = a->keys->pdata[k], *vn = a->items->pdata[k];
        GPtrArray *list = g_hash_table_lookup (h, kn->value);
        if (!list) {
          list = g_ptr_array_new_with_free_func (g_free);
          g_hash_table_insert (h, g_strdup (kn->value), list);
        }
        g_ptr_array_add (list, g_strdup_printf ("%s%s%s [%s, %s]", *sub, **sub ? "/" : "", (char *) names->pdata[i],
                                                ((YNode *) vn->items->pdata[0])->value,
                                                ((YNode *) vn->items->pdata[1])->value));
      }
    }
  }
  return h;
}

/* In table order. A key without a default shows as (required), or as (absent) under published.: the rule that
 * ps_config_load() enforces. `ranges` (ps_config_shipped_ranges(), may be NULL) adds to a key's meaning the files
 * that give it a range (one line per key stays one line per key: scripts read the table). */
void
ps_config_print_keys (GString *out, gboolean markdown, GHashTable *ranges)
{
  if (markdown)
    g_string_append (out, "| key | type | default | unit | meaning and source |\n|---|---|---|---|---|\n");
  for (size_t i = 0; i < N_KEYS; i++) {
    const KeyDef *k = &keys[i];
    g_autofree char *range = NULL;
    if (k->allowed) {
      GString *s = g_string_new (NULL);
      for (const int64_t *a = k->allowed; *a >= 0; a++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, a == k->allowed ? "" : "/", *a);
      range = g_string_free (s, FALSE);
    } else if (k->words) {
      range = g_strjoinv ("/", (char **) k->words);
    } else if (k->type == K_INT || k->type == K_DOUBLE || k->type == K_POINTS) {
      range = g_strdup_printf ("%g–%g", k->min, k->max);
    } else {
      range = g_strdup ("");
    }
    const char *dflt = k->dflt ? k->dflt : g_str_has_prefix (k->path, "published.") ? "(absent)" : "(required)";
    /* The two datapath keys default per link, not to the one value their table line holds. */
    if (g_str_has_prefix (k->path, "endpoint.datapath_bits") || g_str_has_prefix (k->path, "endpoint.clock_mhz"))
      dflt = "(per link)";
    GPtrArray *files = ranges ? g_hash_table_lookup (ranges, k->path) : NULL;
    g_autofree char *assumed = NULL;
    if (files) {
      g_ptr_array_add (files, NULL);
      g_autofree char *joined = g_strjoinv ("; ", (char **) files->pdata);
      g_ptr_array_remove_index (files, files->len - 1);
      assumed = g_strdup_printf ("an ASSUMPTION with a range in %s", joined);
    }
    if (markdown)
      g_string_append_printf (out, "| `%s` | %s %s | `%s` | %s | %s%s%s |\n", k->path, type_name (k), range, dflt,
                              k->unit, k->doc, assumed ? ". Ranges: " : "", assumed ? assumed : "");
    else
      g_string_append_printf (out, "%-36s %-14s %-10s %-12s %s%s%s\n", k->path, type_name (k), dflt, k->unit, k->doc,
                              assumed ? "; " : "", assumed ? assumed : "");
  }
}
