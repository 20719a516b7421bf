#!/usr/bin/env python3
"""readme-tables.py — the README's calibration tables, from the program's own output (run by scripts/update-readme).

  readme-tables.py an456      < `pciesim validate --format json --tolerance 100`
      AN-456 Tables 7-13 in the document's layout: per table, each configuration's DMA read, DMA write, the
      simultaneous read / write pair and the theoretical figure, each cell "simulated / published (error)"; suspect
      figures marked with their reasons, then the accuracy per table and over all.
  readme-tables.py others     < the same
      the Avalon-MM DMA's Signal Tap figures and XDMA's hardware figure, compared the same way.
  readme-tables.py crossval CROSSVAL.json
      in-sample and leave-one-family-out errors per family (scripts/calibrate --cross-validate --output).
  readme-tables.py xdma       < `pciesim sweep scenarios/xdma_transfer_size.yaml --format csv`
      XDMA's hardware figures from 4 KB to 32 MB against the published ~6.9 GB/s.
  readme-tables.py avmm CREDITS16_MBPS < `pciesim configs/avmm256_g3_x8.yaml --format json`
      the Avalon-MM DMA's figures: the Signal Tap window's beside the published ones, the whole-transfer ones
      (held back), and the write the i7-3930K's 16 posted credits would allow.

Presentation only: which table a row belongs to and the device and host names of its heading. The figures, flags
and reasons all come from the input. python3 is there wherever meson is (meson is a python3 program).
"""
import csv, json, math, sys

# AN-456's tables in document order: (table, config-name prefix, device, host); published-calibration.md §1.
TABLES = [
    (7, "a10gx", "Arria 10 GX hard IP", "i7-3930K"),
    (8, "svgx", "Stratix V GX hard IP", "i7-3930K"),
    (9, "cvgt", "Cyclone V GT hard IP", "i7-3930K"),
    (10, "avgt", "Arria V GT hard IP", "i7-3930K"),
    (11, "sivgx", "Stratix IV GX hard and soft IP", "X58"),
    (12, "aiigx", "Arria II GX hard and soft IP", "X58"),
    (13, "civgx", "Cyclone IV GX", "X58"),
]
FIGURES = ["read", "write", "simultaneous_read", "simultaneous_write"]
MARK = {"suspect": " †", "above-protocol-limit": " ‡"}


def stats(errs):
    e = sorted(abs(x) for x in errs)
    if not e:
        return "no figures"
    p90 = e[math.ceil(0.9 * len(e)) - 1]
    return f"mean {sum(e) / len(e):.2f}%, p90 {p90:.2f}%, max {e[-1]:.2f}% over {len(e)} figures"


def cell(f):
    if f is None:
        return "–"
    return f"{f['simulated_mbps']:.0f} / {f['published_mbps']:.0f} ({f['error_pct']:+.1f}%){MARK.get(f['flag'], '')}"


def counted(f):
    return f["flag"] not in MARK


def document_order(name):
    """The document lists a table's rows fastest first, the 128-bit variant before the 64-bit one, soft IP last."""
    parts = name.split("_")
    return name.endswith("_soft"), -int(parts[1][1:]), -int(parts[2][1:]), "avst64" in name


def by_config(doc):
    rows = {}
    for f in doc["figures"]:
        rows.setdefault(f["config"], {})[f["figure"]] = f
    return rows


def an456(doc):
    rows = by_config(doc)
    out, every = [], []
    for table, prefix, device, host in TABLES:
        names = sorted((n for n in rows if n.split("_")[0] == prefix), key=document_order)
        out.append(f"**Table {table}: {device}, {host} host** — simulated / published MB/s (error)\n")
        out.append("| Configuration | DMA read | DMA write | Simultaneous read / write | Theoretical |")
        out.append("|---|---:|---:|---:|---:|")
        errs, notes = [], []
        for n in names:
            r = rows[n]
            pair = f"{cell(r.get('simultaneous_read'))} · {cell(r.get('simultaneous_write'))}"
            theo = next(iter(r.values()))["theoretical_mbps"]
            out.append(f"| {n} | {cell(r.get('read'))} | {cell(r.get('write'))} | {pair} | {theo:.1f} |")
            for k in FIGURES:
                f = r.get(k)
                if f and counted(f):
                    errs.append(f["error_pct"])
                elif f and f["flag"] == "suspect" and f.get("suspect_reason") not in [x[1] for x in notes]:
                    notes.append((n, f["suspect_reason"]))
                elif f and f["flag"] == "above-protocol-limit":
                    notes.append((n, f"‡ the published {k.replace('_', ' ')} is above what the protocol allows "
                                     f"({f['published_mbps']:.0f} MB/s): flagged by validate itself"))
        out.append("")
        for n, why in notes:
            out.append(f"- {n}: {why if why.startswith('‡') else '† suspect, left out: ' + why}")
        if notes:
            out.append("")
        out.append(f"Table {table}: {stats(errs)}.\n")
        every += errs
    formula = [(f["theoretical_mbps"] - f["published_mbps"]) / f["published_mbps"] * 100
               for r in rows.values() for f in r.values()
               if counted(f) and f["config"].split("_")[0] in {t[1] for t in TABLES}]
    out.append(f"**All seven tables: {stats(every)}** (suspect and above-limit figures left out; "
               "`pciesim validate --strict` counts the suspect ones). The vendor's theoretical formula on the same "
               f"figures: {stats(formula)}.")
    return "\n".join(out)


def others(doc):
    rows = by_config(doc)
    names = {"avmm256_g3_x8": "Avalon-MM DMA, Signal Tap window (§2.1)", "xdma_g3_x8": "XDMA hardware, 1 MB (§2.2)"}
    labels = {"peak_write": "TX write", "peak_write_excluding_read_requests": "TX write without read-request cycles",
              "peak_read": "RX completions", "read": "H2C (DMA read)", "write": "C2H (DMA write)"}
    out = ["| System | Figure | Simulated MB/s | Published MB/s | Error |", "|---|---|---:|---:|---:|"]
    for n, title in names.items():
        for k, f in rows.get(n, {}).items():
            out.append(f"| {title} | {labels.get(k, k)} | {f['simulated_mbps']:.1f} | {f['published_mbps']:.0f} | "
                       f"{f['error_pct']:+.1f}% |")
    return "\n".join(out)


def crossval(path):
    doc = json.load(open(path))
    out = ["| Family (table) | Rows | In-sample: mean / p90 / max | Left out: mean / p90 / max | Refitted without it |",
           "|---|---:|---:|---:|---|"]
    tables = {prefix: table for table, prefix, _, _ in TABLES}

    def trio(s):
        return f"{s['mean_abs_error_pct']:.2f} / {s['p90_abs_error_pct']:.2f} / {s['max_abs_error_pct']:.2f}%"

    for fam, v in sorted(doc["families"].items(), key=lambda kv: tables.get(kv[0], 99)):
        changes = ", ".join(f"`{k.split('/')[1]}` {val} ({k.split('/')[0].split('.')[-1]})"
                            for k, val in v["refitted_changes"].items()) or "nothing moved"
        out.append(f"| {fam} ({tables.get(fam, '?')}) | {v['rows']} | {trio(v['in_sample'])} | "
                   f"{trio(v['leave_one_family_out'])} | {changes} |")
    a = doc["all"]
    out.append(f"| **all** | 34 | **{trio(a['in_sample'])}** | **{trio(a['leave_one_family_out'])}** | |")
    return "\n".join(out)


def xdma():
    rows = list(csv.DictReader(sys.stdin))
    out = ["| Transfer | H2C (read) MB/s | vs 6900 | C2H (write) MB/s | vs 6900 |", "|---:|---:|---:|---:|---:|"]
    for r in rows:
        b = int(r["benchmark.transfer_bytes"])
        size = f"{b >> 20} MB" if b >= 1 << 20 else f"{b >> 10} KB"
        rd, wr = float(r["read_mbps"]), float(r["write_mbps"])
        out.append(f"| {size} | {rd:.0f} | {(rd - 6900) / 69:+.1f}% | {wr:.0f} | {(wr - 6900) / 69:+.1f}% |")
    return "\n".join(out)


def avmm(run, credits16):
    sim = run["results"]["simultaneous"]
    peak, pub = sim["peak"], run["published"]
    out = ["| Figure of §2.1 | pciesim | Simulated MB/s | Published MB/s |", "|---|---|---:|---:|"]
    rows = [("TX write, read-request cycles counted (Signal Tap window)", "peak.write_mbps",
             peak["write_mbps"], pub.get("peak_write_mbps")),
            ("TX write, read-request cycles left out (Signal Tap window)", "peak.write_mbps_excluding_read_requests",
             peak["write_mbps_excluding_read_requests"], pub.get("peak_write_excluding_read_requests_mbps")),
            ("RX read completions (Signal Tap window)", "peak.read_mbps", peak["read_mbps"], pub.get("peak_read_mbps")),
            ("TX write, whole 2 MB transfers", "write_mbps", sim["write_mbps"], None),
            ("TX write without read-request cycles, whole transfers", "write_mbps_excluding_read_requests",
             sim["write_mbps_excluding_read_requests"], None),
            ("RX completions, whole transfers", "read_mbps", sim["read_mbps"], None),
            ("both directions averaged, descriptor overheads included", "both_directions_mean_mbps",
             sim["both_directions_mean_mbps"], None),
            ("TX write, whole transfers, with the i7-3930K's 16 posted credits", "write_mbps, `--set "
             "host.rx_credits.ph=16 --set host.rx_credits.pd=256`", float(credits16), None)]
    for what, key, v, p in rows:
        key = key if key.startswith("write_mbps,") else f"`{key}`"
        out.append(f"| {what} | {key} | {v:.1f} | {'held back' if p is None else f'{p:.0f}'} |")
    return "\n".join(out)


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "an456":
        print(an456(json.load(sys.stdin)))
    elif what == "others":
        print(others(json.load(sys.stdin)))
    elif what == "crossval" and len(sys.argv) == 3:
        print(crossval(sys.argv[2]))
    elif what == "xdma":
        print(xdma())
    elif what == "avmm" and len(sys.argv) == 3:
        print(avmm(json.load(sys.stdin), sys.argv[2]))
    else:
        sys.exit(__doc__)


main()
