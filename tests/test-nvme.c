/* test-nvme.c — the NVMe SSD (models/devices/nvme.h) under its driver (models/workloads/nvme_driver.h), held to
 * figures worked out by hand from the spec's byte counts, on a link and host that add nothing of their own: Gen4
 * x4, MPS 256, no pipelines, no flight time, infinite credits, a host with no latency (configs/hosts/ideal.yaml's
 * values). */
#include <check.h>
#include <math.h>

#include "models/devices/host.h"
#include "models/devices/nvme.h"
#include "models/link/link.h"
#include "models/workloads/nvme_driver.h"
#include "common.h"

/* Gen4 x4 with 128b/130b (spec §4.2.2): 16 GT/s per lane, 130 bits a 16-byte block per lane, 4 lanes: a byte of a
 * TLP takes 1e12 / (16e9 x 4 x 128 / 130 / 8) ps. */
#define BYTE_PS (1e12 / (16e9 * 4 * 128.0 / 130.0 / 8.0))
/* Per TLP on the wire at 8 GT/s and above (spec §4.2.2.3.1): a 4-byte STP token (length, sequence number) and a
 * 4-byte LCRC. */
#define FRAMING 8u

typedef struct {
  Fabric *f;
  Host *host;
  Nvme *d;
  Dist *read, *program;
} Rig;

static LinkParams
gen4x4 (void)
{
  return (LinkParams) { .gen = 4, .lanes = 4, .max_payload_bytes = 256 };
}

static void
rig_build (Rig *r, uint32_t queues, uint32_t depth, double flash_ns, uint32_t threshold, double coalesce_ns)
{
  g_autoptr (GError) e = NULL;
  r->f = fabric_new (1);
  HostParams hp = { .rcb_bytes = 64, .cpl_policy = CPL_POLICY_MPS };
  r->host = host_new (r->f, "host", &hp, 1);
  r->read = dist_new_fixed (flash_ns, &e);
  r->program = dist_new_fixed (flash_ns, &e);
  NvmeParams p = { .queues = queues, .queue_depth = depth, .tags = 256, .max_read_request_bytes = 512,
                   .coalesce_threshold = threshold, .coalesce_time_ns = coalesce_ns, .read_latency = r->read,
                   .program_latency = r->program };
  ck_assert (nvme_params_check (&p, &e));
  r->d = nvme_new (r->f, "ssd", &p);
  LinkParams lp = gen4x4 ();
  ck_assert_msg (fabric_connect (r->f, host_component (r->host), 0, nvme_component (r->d), 0, &lp, &e) != NULL, "%s",
                 e ? e->message : "");
  ck_assert_msg (fabric_enumerate (r->f, &e), "%s", e ? e->message : "");
}

static void
rig_free (Rig *r)
{
  fabric_free (r->f);
  dist_free (r->read);
  dist_free (r->program);
}

static NvmeResult
rig_run (Rig *r, uint32_t block, uint64_t commands, double sw_ns, double write_pct)
{
  /* A CPU with no time of its own but the driver's: no interrupt or wake-up time, no path to the root complex. */
  NvmeDriverParams p = { .block_bytes = block, .commands = commands, .submit_ns = sw_ns, .complete_ns = sw_ns,
                         .write_percent = write_pct, .cpu = { .wc = { .buffers = 1, .buffer_bytes = 64 } } };
  NvmeResult out;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (nvme_run (r->f, r->host, r->d, &p, &out, &e), "%s", e ? e->message : "");
  return out;
}

/* (a) No flash time, no software time, 4 x 64 commands in flight: the upstream direction, which carries each
 * read's data, never waits, so the data rate is the wire's TLP byte rate times the data's share of what each
 * command puts on it. Upstream per 4 KB read command, an MSI-X per command:
 *   the 64-byte fetch, an MRd with a 4-DW header (64-bit address):  16 + 8            =   24
 *   16 data MWrs of MPS 256 (4-DW headers):                     16 x (256 + 16 + 8)  = 4480
 *   the 16-byte completion entry, an MWr:                            16 + 16 + 8       =   40
 *   the MSI-X, a 1-DW MWr to the 32-bit APIC window (3-DW header):   4 + 12 + 8        =   24
 *   total 4568, of which 4096 data.
 * The wire's TLP byte rate is the protocol limit of MPS MWrs with 4-DW headers (link.h: what SKP ordered sets
 * leave) over the data's share of such a TLP, 256 / 280. Downstream (the SQ and CQ doorbells, the fetch's CplD:
 * 3 TLPs a command) costs the upstream direction only their Acks, 8-byte DLLPs (2-byte SDP token, 6 bytes): at
 * most one each, so the figure lies between 4096 / (4568 + 24) and 4096 / 4568 of the wire. */
START_TEST (test_deep_queue_is_wire_bound)
{
  Rig r;
  rig_build (&r, 4, 64, 0, 1, 0);
  NvmeResult o = rig_run (&r, 4096, 20000, 0, 0);
  LinkParams lp = gen4x4 ();
  double wire = link_protocol_limit_mbps (&lp, 16) * (256.0 + 16 + FRAMING) / 256.0;
  double per_cmd = (16 + FRAMING) + 16 * (256 + 16 + FRAMING) + (16 + 16 + FRAMING) + (4 + 12 + FRAMING);
  ck_assert_uint_eq ((uint64_t) per_cmd, 4568);
  double want = wire * 4096.0 / per_cmd, low = wire * 4096.0 / (per_cmd + 3 * 8);
  ck_assert_msg (o.mbps <= want * 1.0005 && o.mbps >= low, "deep queue: %.1f MB/s, by hand %.1f to %.1f", o.mbps, low,
                 want);
  ck_assert_msg (fabs (o.iops - o.mbps * 1e6 / 4096) < 1e-6 * o.iops, "IOPS %.1f is MB/s / block", o.iops);
  rig_free (&r);
}
END_TEST

/* (a') The same for writes to flash: their data comes down in the host's completions, cut at MPS (RCB 64 and MPS
 * 256, 4 KB pages read in MRRS-512 MRds: each answered by two 256-byte CplDs with 3-DW headers). Downstream per
 * 4 KB write command:
 *   the SQ doorbell, a 1-DW MWr to the 64-bit BAR0:           4 + 16 + 8         =   28
 *   the fetch's CplD:                                         64 + 12 + 8        =   84
 *   16 data CplDs:                                       16 x (256 + 12 + 8)     = 4416
 *   the CQ doorbell:                                          4 + 16 + 8         =   28
 *   total 4556, of which 4096 data; the wire's rate is the protocol limit of 3-DW-header MPS TLPs over 256 / 276.
 * The upstream TLPs (the fetch, 8 data MRds, the entry, the MSI-X: 11 a command) cost the downstream direction
 * their Acks, at most 11 x 8 bytes. */
START_TEST (test_deep_queue_writes_wire_bound)
{
  Rig r;
  rig_build (&r, 4, 64, 0, 1, 0);
  NvmeResult o = rig_run (&r, 4096, 20000, 0, 100);
  LinkParams lp = gen4x4 ();
  double wire = link_protocol_limit_mbps (&lp, 12) * (256.0 + 12 + FRAMING) / 256.0;
  double per_cmd = (4 + 16 + FRAMING) + (64 + 12 + FRAMING) + 16 * (256 + 12 + FRAMING) + (4 + 16 + FRAMING);
  double want = wire * 4096.0 / per_cmd, low = wire * 4096.0 / (per_cmd + 11 * 8);
  ck_assert_msg (o.mbps <= want * 1.0005 && o.mbps >= low, "deep queue writes: %.1f MB/s, by hand %.1f to %.1f",
                 o.mbps, low, want);
  rig_free (&r);
}
END_TEST

/* (b) Queue depth 1: a command's time is its submission, the doorbell's way down, the fetch's round trip, its
 * flash time, its data, completion entry and MSI-X up, and its reaping; IOPS = 1 / that. On this link each TLP
 * takes its bytes' time on the wire and nothing else (no pipelines, no flight, no host latency):
 *   submit_ns                                                            1000 ns
 *   SQ doorbell, a 1-DW MWr to the 64-bit BAR0, down:   (4 + 16 + 8) = 28 bytes
 *   the fetch MRd up: 24 bytes; its CplD down:        (64 + 12 + 8) = 84 bytes
 *   flash_read_ns                                                        10000 ns
 *   16 data MWrs, the entry, the MSI-X, up:       4480 + 40 + 24 = 4544 bytes
 *   complete_ns                                                          1000 ns
 * 4680 bytes of wire, 594.1 ns at Gen4 x4. Allowed: 10 ns, for an Ack or a SKP ordered set in the way; leaving
 * out the round trips would miss by 594 ns, and any term counted twice by at least 3 ns x its bytes. */
START_TEST (test_queue_depth_one)
{
  Rig r;
  rig_build (&r, 1, 1, 10000, 1, 0);
  NvmeResult o = rig_run (&r, 4096, 200, 1000, 0);
  double wire_ns = (28 + 24 + 84 + 4544) * BYTE_PS / 1000.0;
  double want_ns = 1000 + wire_ns + 10000 + 1000;
  double got_ns = 1e9 / o.iops;
  ck_assert_msg (fabs (got_ns - want_ns) < 10, "QD1: %.1f ns per command (%.0f IOPS), by hand %.1f ns", got_ns,
                 o.iops, want_ns);
  /* Each command's latency is the whole cycle: the next starts as it is reaped. */
  ck_assert_msg (fabs (o.latency.mean_ns - want_ns) < 10, "QD1 latency %.1f ns, by hand %.1f", o.latency.mean_ns,
                 want_ns);
  rig_free (&r);
}
END_TEST

/* Flash time moves a queue-depth-1 command by exactly itself: 25 us more flash, 25 us more per command. */
START_TEST (test_flash_time_adds)
{
  Rig a, b;
  rig_build (&a, 1, 1, 10000, 1, 0);
  rig_build (&b, 1, 1, 35000, 1, 0);
  NvmeResult oa = rig_run (&a, 8192, 50, 500, 0), ob = rig_run (&b, 8192, 50, 500, 0);
  double d = 1e9 / ob.iops - 1e9 / oa.iops;
  ck_assert_msg (fabs (d - 25000) < 1, "25 us of flash added %.3f ns per command", d);
  rig_free (&a);
  rig_free (&b);
}
END_TEST

/* Interrupt coalescing: with a threshold of 4 entries, 8 commands in flight and a time longer than the run, the
 * device raises exactly one MSI-X per 4 completions: 0.25 a command over 400 commands. */
START_TEST (test_coalescing_threshold)
{
  Rig r;
  rig_build (&r, 1, 8, 2000, 4, 1e7);
  NvmeResult o = rig_run (&r, 4096, 400, 100, 0);
  ck_assert_uint_eq (o.interrupts * 4, o.commands);
  rig_free (&r);
}
END_TEST

/* The coalescing time: at queue depth 1 an entry never reaches a threshold of 8, so its interrupt waits the whole
 * aggregation time from when the device posts the entry, right behind its data, which the link takes in at once:
 * the MSI-X then leaves 20 us after the data started on the wire, where it followed the data and the entry
 * (4480 + 40 bytes) before. 20 us - 4520 bytes of Gen4 x4 wire = 19426.2 ns more per command; allowed 5 ns. */
START_TEST (test_coalescing_time_adds)
{
  Rig a, b;
  rig_build (&a, 1, 1, 10000, 1, 0);
  rig_build (&b, 1, 1, 10000, 8, 20000);
  NvmeResult oa = rig_run (&a, 4096, 50, 500, 0), ob = rig_run (&b, 4096, 50, 500, 0);
  double d = 1e9 / ob.iops - 1e9 / oa.iops;
  double want = 20000 - 4520 * BYTE_PS / 1000.0;
  ck_assert_msg (fabs (d - want) < 5, "20 us of coalescing added %.3f ns per command, by hand %.3f", d, want);
  ck_assert_uint_eq (ob.interrupts, 50);
  rig_free (&a);
  rig_free (&b);
}
END_TEST

/* Writes to flash: a 128 KB write reads its 32 pages through a PRP list (31 entries after PRP1, one 248-byte
 * read) in MRds of MRRS 512, 8 per page: the device's counters say so, and every byte was checked by the
 * harness's ledger of host memory. */
START_TEST (test_write_prp_pages)
{
  Rig r;
  rig_build (&r, 2, 4, 1000, 1, 0);
  NvmeResult o = rig_run (&r, 131072, 40, 0, 100);
  NvmeCounters c = nvme_counters (r.d);
  ck_assert_uint_eq (c.prp_lists, 40);
  ck_assert_uint_eq (c.data_mrd, 40 * 32 * (4096 / 512));
  ck_assert_uint_eq (c.writes, 40);
  ck_assert_uint_eq (o.bytes, 40 * 131072);
  rig_free (&r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("nvme");
  TCase *tc = tcase_create ("nvme");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_deep_queue_is_wire_bound);
  tcase_add_test (tc, test_deep_queue_writes_wire_bound);
  tcase_add_test (tc, test_queue_depth_one);
  tcase_add_test (tc, test_flash_time_adds);
  tcase_add_test (tc, test_coalescing_threshold);
  tcase_add_test (tc, test_coalescing_time_adds);
  tcase_add_test (tc, test_write_prp_pages);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
