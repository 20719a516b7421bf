#!/usr/bin/env python3
"""randfab.py — random valid fabrics, run end to end, every failure shrunk to a minimal config (issue #30).

    randfab.py --pciesim EXE [--cases N | --seconds S] [--seed S] [--keep DIR]

A seeded generator of fabrics a user could write and the rules call valid: a tree of switches (depth <= 4,
fan-out <= 16) under one root complex with up to 32 endpoints; every generation and width the model has, flit
mode included; every host file of configs/hosts/; per-node gen/width, per-link credit overrides within the spec's
legal range (spec §3.4.2: data credits of at least one max-size TLP, a switch port's headers finite), file-wide
link keys (64-bit addresses, ECRC, SRIS, UpdateFC policy, transmit queue, RCB), shared and per-port switch
buffers, round robin and weighted round robin, per-endpoint tags and BARs; up to 64 reads, writes and peer-to-peer
flows with rate caps, start times and iterations; a link with a bit error rate now and then. Each case is run by pciesim and must:

  - exit 0 (a refusal is a failure too: the generator holds the config valid, so either the generator has to
    learn a rule or the program refuses what it should run);
  - report every flow with delivered_bytes = bytes x iterations;
  - keep every flow at or under the raw wire rate of every link on its path (an independent, loose bound: lanes x
    GT/s x line-code efficiency; pciesim itself holds flows to the exact protocol limit and exits 70 above it);
  - print byte-identical JSON when run again with the same seed (every fourth case).

A failing case is shrunk: flows, endpoints and switches dropped, iterations cut to one, sizes halved, overrides,
rate caps, start times, bit errors and optional link keys removed, as long as the same kind of failure remains;
the smallest config is printed whole. Randomness here is Python's, seeded per case from --seed (the simulator's
own comes from --seed of pciesim, which every run passes). Exit status: 0 all passed, 1 a failure (shrunk and
printed), 2 usage (argparse's).
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The host files and the posted-data credits their root ports advertise: a config's MPS needs MPS / 16 of them
# (spec §3.4.2); 0 is infinite.
# (q6600-x38 answers reads in 64-byte completions, which a read completion boundary of 128 does not allow.)
HOSTS = {"ideal": 0, "i7-3930k": 256, "haswell-e5-2620v3": 256, "q6600-x38": 64, "x58": 128, "z77": 512,
         "avmm-reference-host": 512}
# Symbol rate per lane (GT/s) and line-code efficiency: 8b/10b at Gen1-2, 128b/130b at Gen3-5, PAM4 flits at Gen6
# (pcie-protocol.md §1). Flit mode at Gen1-5 keeps the line code.
GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
CODE = {1: 0.8, 2: 0.8, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 1.0}
POW2 = [128, 256, 512, 1024, 2048, 4096]


def wire_mbps(gen, lanes):
    """Raw bytes per microsecond of a link after its line code: no TLP can carry payload faster."""
    return lanes * GTS[gen] * CODE[gen] * 1000 / 8


# --- the generator -----------------------------------------------------------------------------------------------


def credits(rng, mps, mrrs, switch_end, scaled):
    """A per-link advertisement within the legal range: finite data credits hold one max-size TLP (spec §3.4.2),
    a switch port's header credits are finite; 0 (infinite) elsewhere now and then. Without scaled flow control
    (a link whose ends both train at 16 GT/s or more has it: the link trains to the lower end) at most 127 header
    and 2047 data credits (spec §2.6.1, #39 point 6)."""
    c = {}
    for t in rng.sample(["ph", "pd", "nph", "npd", "cplh", "cpld"], rng.randint(1, 3)):
        hdr = t in ("ph", "nph", "cplh")
        if not switch_end and rng.random() < 0.2 or (switch_end and not hdr and rng.random() < 0.1):
            c[t] = 0
        elif hdr:
            c[t] = rng.choice([1, 2, 4, 16, 64, 2032 if scaled else 127])
        else:
            least = {"pd": mps // 16, "cpld": min(mps, mrrs) // 16, "npd": 1}[t]
            c[t] = min(32752 if scaled else 2047, rng.choice([least, least + 1, 2 * least, 8 * least, 32752]))
    return c


def generate(seed):
    rng = random.Random(seed)
    flit = rng.random() < 0.2
    gen = rng.randint(1, 6)
    no_odd = flit or gen == 6
    lane_set = [1, 2, 4, 8, 16] + ([] if no_odd else [12, 32])
    host = rng.choice(["ideal", "ideal", "ideal"] + sorted(HOSTS))
    case = {
        "seed": seed,
        "host": host,
        "link": {"gen": gen, "lanes": rng.choice(lane_set), "flit_mode": flit,
                 "max_payload": rng.choice([m for m in POW2 if not HOSTS[host] or m <= 16 * HOSTS[host]]),
                 "max_read_request": rng.choice(POW2)},
        "switch": {},
        "nodes": [],  # {name, type, parent, link (per-node gen/lanes), switch (per-node keys), weights}
        "links": {},  # child name -> link overrides
        "flows": [],
    }
    # flit_mode: false is refused at Gen6 (it would be ignored) and says nothing elsewhere: written only when true.
    if not flit:
        del case["link"]["flit_mode"]
    mps, mrrs = case["link"]["max_payload"], case["link"]["max_read_request"]
    for key, p, values in (("address_bits", 0.2, [64]), ("ecrc", 0.2, [True]), ("sris", 0.1, [True]),
                           ("updatefc_policy", 0.3, ["recommended"]), ("tx_queue_tlps", 0.2, [1, 4, 16]),
                           ("read_completion_boundary", 0.2,
                            [64] if host in ("q6600-x38", "haswell-e5-2620v3") else [64, 128])):
        # SRIS in flit mode cannot fit a x1 flit between its SKPs at 2.5/5 GT/s (refused): SRIS without flit mode.
        if rng.random() < p and not (key == "sris" and flit):
            case["link"][key] = rng.choice(values)
    sw = case["switch"]
    if rng.random() < 0.5:
        sw["buffer"] = rng.choice(["per_port", "shared"])
    if rng.random() < 0.5:
        sw["forwarding"] = rng.choice(["cut_through", "store_and_forward"])
    if rng.random() < 0.5:
        sw["arbitration"] = rng.choice(["round_robin", "weighted_round_robin"])
    if rng.random() < 0.3:
        # At least switch.dll_latency_ns (50 ns by default), the part of it a DLLP sees.
        sw["latency_ns"] = rng.choice([50, 150, 400])
    if rng.random() < 0.3:
        sw["rx_credits"] = {"ph": rng.choice([1, 8, 64]), "pd": max(mps // 16, rng.choice([8, 64, 640])),
                            "nph": rng.choice([1, 8, 64]), "cplh": rng.choice([1, 8, 64]),
                            "cpld": max(min(mps, mrrs) // 16, rng.choice([8, 64, 640]))}
    if sw.get("buffer") == "shared" and rng.random() < 0.5:
        sw["pool"] = {"ph": rng.choice([8, 64]), "pd": rng.choice([1024, 4096])}
    nodes = case["nodes"]
    nodes.append({"name": "host", "type": "root_complex", "parent": None, "depth": 0})
    n_sw = rng.choice([0, 0, 1, 1, 2, 3, 4, 6, 8])
    for i in range(n_sw):
        parents = [n for n in nodes if n["type"] != "endpoint" and n["depth"] < 4 and children(case, n) < 16]
        p = rng.choice(parents)
        nodes.append({"name": "sw%d" % i, "type": "switch", "parent": p["name"], "depth": p["depth"] + 1})
    n_ep = rng.randint(1, rng.choice([2, 4, 8, 32]))
    for i in range(n_ep):
        parents = [n for n in nodes if n["type"] != "endpoint" and children(case, n) < 16]
        if not parents:
            break
        p = rng.choice(parents)
        nodes.append({"name": "e%d" % i, "type": "endpoint", "parent": p["name"], "depth": p["depth"] + 1})
    prune(case)
    nodes = case["nodes"]
    for n in nodes:
        if n["type"] == "root_complex":
            continue
        if rng.random() < 0.2:  # a node of its own generation or width: the link trains to the lower
            # Gen6 always runs flit mode, which has no x12 or x32.
            n["link"] = {"gen": rng.randint(1, 5 if case["link"]["lanes"] in (12, 32) else 6)}
            if rng.random() < 0.5:
                n["link"]["lanes"] = rng.choice([1, 2, 4, 8, 16])
        if n["type"] == "endpoint" and rng.random() < 0.2:
            # 10-bit tags (768) only where the node's link generation is 16 GT/s or more, or flit mode runs
            # (spec r4.0, §2.2.6.2: refused otherwise).
            n["endpoint"] = {"tags": rng.choice([1, 4, 32, 256] + ([768] if flit or gen_of(case, n) >= 4 else []))}
        if n["type"] == "endpoint" and rng.random() < 0.2:
            n["bars"] = [rng.choice([0, 1 << 20]), 16 << 20]
        if n["type"] == "switch" and rng.random() < 0.2:
            n["switch"] = {"forwarding": rng.choice(["cut_through", "store_and_forward"])}
        if n["type"] == "switch" and sw.get("arbitration") == "weighted_round_robin" and rng.random() < 0.5:
            n["weights"] = [rng.randint(1, 4) for _ in range(children(case, n) + 1)]
        lk = {}
        if rng.random() < 0.3:
            lk["a_rx_credits"] = credits(rng, mps, mrrs, parent_of(case, n)["type"] == "switch", min(gen_of(case, parent_of(case, n)), gen_of(case, n)) >= 4)
        if rng.random() < 0.3:
            lk["b_rx_credits"] = credits(rng, mps, mrrs, n["type"] == "switch", min(gen_of(case, parent_of(case, n)), gen_of(case, n)) >= 4)
        # Errors need store-and-forward at a switch end (nullified TLPs are not modelled at a cut-through one).
        ends = [parent_of(case, n), n]
        cut = any(e["type"] == "switch" and e.get("switch", {}).get("forwarding", sw.get("forwarding", "cut_through"))
                  == "cut_through" for e in ends)
        if rng.random() < 0.05 and not cut:
            lk["ber"] = rng.choice([1e-9, 1e-8, 1e-7])
        if lk:
            case["links"][n["name"]] = lk
    eps = [n["name"] for n in nodes if n["type"] == "endpoint"]
    tags = {}
    for k in range(rng.randint(1, min(rng.choice([8, 24, 64]), 2 + 3 * len(eps)))):
        src = rng.choice(eps)
        peers = [e for e in eps if e != src]
        target = rng.choice(peers) if peers and rng.random() < 0.3 else "host"
        f = {"name": "f%d" % k, "source": src, "target": target, "op": rng.choice(["write", "read"]),
             "bytes": 4 * rng.randint(1, rng.choice([16, 1024, 16384])), "iterations": rng.choice([1, 1, 2, 4])}
        if f["op"] == "read":
            # Every read flow holds endpoint.tags tags of its own; a source's together fit the tags its link
            # carries: 768 10-bit ones, 16384 14-bit ones in flit mode (Gen6 always).
            node = next(n for n in nodes if n["name"] == src)
            need = node.get("endpoint", {}).get("tags", 32)
            up_gen = min(gen_of(case, node), gen_of(case, parent_of(case, node)))
            if tags.get(src, 0) + need > (16384 if flit or up_gen == 6 else 768):
                f["op"] = "write"
            else:
                tags[src] = tags.get(src, 0) + need
        if target != "host" and "bars" in next(n for n in nodes if n["name"] == target):
            f["bar"] = 1
        if rng.random() < 0.3:
            f["start_ns"] = rng.choice([0, 100, 5000, 20000])
        if rng.random() < 0.2:
            f["rate_mbps"] = rng.choice([100, 800, 3000])
        case["flows"].append(f)
    return case


def children(case, node):
    return sum(1 for n in case["nodes"] if n["parent"] == node["name"])


def gen_of(case, node):
    return node.get("link", {}).get("gen", case["link"]["gen"])


def parent_of(case, node):
    return next(n for n in case["nodes"] if n["name"] == node["parent"])


def prune(case):
    """A switch with nothing below it is a dead end no flow uses: drop it (repeatedly, leaves first)."""
    while True:
        dead = [n for n in case["nodes"] if n["type"] == "switch" and children(case, n) == 0]
        if not dead:
            return
        names = {n["name"] for n in dead}
        case["nodes"] = [n for n in case["nodes"] if n["name"] not in names]
        for name in names:
            case["links"].pop(name, None)


def path_up(case, name):
    """The node and every node above it, up to the root complex."""
    out = []
    while name is not None:
        out.append(name)
        name = next(n for n in case["nodes"] if n["name"] == name)["parent"]
    return out


# --- the config ------------------------------------------------------------------------------------------------


def flow_map(d):
    return "{" + ", ".join("%s: %s" % (k, fmt(v)) for k, v in d.items()) + "}"


def fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return flow_map(v)
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def render(case):
    host = os.path.join(ROOT, "configs", "hosts", case.get("host", "ideal") + ".yaml")
    lines = ["# randfab case, seed %s" % case["seed"], "name: randfab", "include: [%s]" % host,
             "link: " + flow_map(case["link"])]
    # switch.* without a switch would change nothing, and is refused.
    if case["switch"] and any(n["type"] == "switch" for n in case["nodes"]):
        lines.append("switch: " + flow_map(case["switch"]))
    lines += ["benchmark: {watchdog_ns: 2000000}", "topology:", "  nodes:"]
    for n in case["nodes"]:
        d = {"type": n["type"]}
        for k in ("link", "endpoint", "switch", "weights", "bars"):
            if k in n:
                d[k] = n[k]
        lines.append("    %s: %s" % (n["name"], flow_map(d)))
    lines.append("  links:")
    for n in case["nodes"]:
        if n["parent"] is None:
            continue
        d = {"a": n["parent"], "b": n["name"]}
        d.update(case["links"].get(n["name"], {}))
        lines.append("    - " + flow_map(d))
    lines.append("flows:")
    for f in case["flows"]:
        lines.append("  - " + flow_map(f))
    return "\n".join(lines) + "\n"


# --- running and judging ---------------------------------------------------------------------------------------


def run(exe, text, tmp, seed):
    path = os.path.join(tmp, "randfab.yaml")
    with open(path, "w") as f:
        f.write(text)
    try:
        p = subprocess.run([exe, path, "--format", "json", "--seed", str(seed)], capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return -2, b"", b"timeout after 600 s"
    return p.returncode, p.stdout, p.stderr


def blank(out):
    return re.sub(rb'"wall_s": *[-0-9.eE+]+', b'"wall_s": 0', out)


def judge(case, exe, tmp, twice):
    """None when the case passes, else (kind, message): kind names the failure so shrinking keeps the same one."""
    text = render(case)
    rc, out, err = run(exe, text, tmp, case["seed"])
    msg = err.decode(errors="replace").strip()
    if rc != 0:
        # The class of failure: the status and the message's words without numbers and names.
        head = re.sub(r"^\S*: error: ", "", msg.splitlines()[0] if msg else "")
        words = re.sub(r"[0-9.]+|'[^']*'|\b[a-z]+[0-9]+\b", "#", head)[:60]
        return ("exit %d %s" % (rc, words), "exit %d: %s" % (rc, msg))
    try:
        rep = json.loads(out)
    except ValueError as e:
        return ("json", "JSON does not parse: %s" % e)
    flows = {f["name"]: f for f in rep.get("flows", [])}
    links = {l["b"]: l for l in rep.get("links", [])}
    for f in case["flows"]:
        r = flows.get(f["name"])
        if r is None:
            return ("missing flow", "flow %s is not in the report" % f["name"])
        want = f["bytes"] * f.get("iterations", 1)
        if r.get("delivered_bytes") != want:
            return ("bytes", "flow %s delivered %s bytes, not %d" % (f["name"], r.get("delivered_bytes"), want))
        for hop in set(path_up(case, f["source"])) ^ set(path_up(case, f["target"])) | {f["source"]}:
            lk = links.get(hop)
            if lk is None:
                continue
            if r["mbps"] > wire_mbps(lk["gen"], lk["lanes"]):
                return ("wire", "flow %s at %.1f MB/s, above the raw rate %.1f of link %s (Gen%d x%d)"
                        % (f["name"], r["mbps"], wire_mbps(lk["gen"], lk["lanes"]), lk["name"], lk["gen"],
                           lk["lanes"]))
    if twice:
        rc2, out2, err2 = run(exe, text, tmp, case["seed"])
        if rc2 != 0 or blank(out2) != blank(out):
            return ("determinism", "a second run with the same seed printed different JSON (exit %d)" % rc2)
    return None


# --- shrinking -------------------------------------------------------------------------------------------------


def copy(case):
    return json.loads(json.dumps(case))


def candidates(case):
    """Smaller variants of a case, biggest cuts first."""
    flows = case["flows"]
    if len(flows) > 1:
        half = len(flows) // 2
        for keep in (flows[:half], flows[half:]):
            c = copy(case)
            c["flows"] = copy({"f": keep})["f"]
            yield c
        for i in range(len(flows)):
            c = copy(case)
            del c["flows"][i]
            yield c
    # A node that no flow names (a switch: once empty) goes with its link; a switch whose children can move up.
    used = {f["source"] for f in flows} | {f["target"] for f in flows}
    for n in case["nodes"]:
        if n["type"] == "endpoint" and n["name"] not in used:
            c = copy(case)
            c["nodes"] = [m for m in c["nodes"] if m["name"] != n["name"]]
            c["links"].pop(n["name"], None)
            prune(c)
            yield c
    for n in case["nodes"]:
        if n["type"] == "switch":
            c = copy(case)
            for m in c["nodes"]:
                if m["parent"] == n["name"]:
                    m["parent"] = n["parent"]
            c["nodes"] = [m for m in c["nodes"] if m["name"] != n["name"]]
            c["links"].pop(n["name"], None)
            if all(children(c, m) <= 16 for m in c["nodes"] if m["type"] == "switch"):
                for m in c["nodes"]:
                    m.pop("weights", None)
                yield c
    for i, f in enumerate(flows):
        for key, small in (("iterations", 1), ("start_ns", None), ("rate_mbps", None)):
            if key in f and f[key] != small:
                c = copy(case)
                if small is None:
                    del c["flows"][i][key]
                else:
                    c["flows"][i][key] = small
                yield c
        if f["bytes"] > 4:
            c = copy(case)
            c["flows"][i]["bytes"] = max(4, f["bytes"] // 8 * 4)
            yield c
        if f["target"] != "host":
            c = copy(case)
            c["flows"][i]["target"] = "host"
            c["flows"][i].pop("bar", None)
            yield c
        if f["op"] == "read":
            c = copy(case)
            c["flows"][i]["op"] = "write"
            yield c
    for name in list(case["links"]):
        c = copy(case)
        del c["links"][name]
        yield c
    for n in case["nodes"]:
        for key in ("link", "endpoint", "switch", "weights") + (() if any(
                f.get("bar") and f["target"] == n["name"] for f in flows) else ("bars",)):
            if key in n:
                c = copy(case)
                del next(m for m in c["nodes"] if m["name"] == n["name"])[key]
                yield c
    if case.get("host", "ideal") != "ideal":
        c = copy(case)
        c["host"] = "ideal"
        yield c
    for key in list(case["switch"]):
        c = copy(case)
        del c["switch"][key]
        yield c
    for key in list(case["link"]):
        if key not in ("gen", "lanes", "flit_mode", "max_payload", "max_read_request"):
            c = copy(case)
            del c["link"][key]
            yield c


def size(case):
    """What shrinking lowers, most important first: nodes, flows, peer-to-peer and read flows, iterations, bytes,
    then the text (overrides, caps and start times)."""
    fl = case["flows"]
    return (len(case["nodes"]), len(fl), sum(f["target"] != "host" for f in fl), sum(f["op"] == "read" for f in fl),
            sum(f.get("iterations", 1) for f in fl), sum(f["bytes"] for f in fl), len(render(case)))


def shrink(case, kind, exe, tmp, deadline):
    best = case
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for c in candidates(best):
            if time.monotonic() >= deadline:
                break
            got = judge(c, exe, tmp, kind == "determinism")
            if got and got[0] == kind and size(c) < size(best):
                best = c
                progress = True
                break
    return best


# --- main ------------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pciesim", required=True)
    ap.add_argument("--cases", type=int, default=0, help="cases to run (default: by --seconds, or 200)")
    ap.add_argument("--seconds", type=float, default=0, help="run cases until this much wall time has passed")
    ap.add_argument("--seed", type=int, default=1, help="the first case's seed; case k has seed + k")
    ap.add_argument("--shrink-seconds", type=float, default=120, help="time allowed to shrink a failure")
    ap.add_argument("--keep", help="write every failing case's full and shrunk config into this directory")
    a = ap.parse_args()
    cases = a.cases or (0 if a.seconds else 200)
    start = time.monotonic()
    print("randfab: seeds from %d" % a.seed, flush=True)
    n = 0
    with tempfile.TemporaryDirectory(prefix="pciesim-randfab-") as tmp:
        while (cases and n < cases) or (not cases and time.monotonic() - start < a.seconds):
            seed = a.seed + n
            case = generate(seed)
            n += 1
            got = judge(case, a.pciesim, tmp, seed % 4 == 0)
            if not got:
                continue
            kind, msg = got
            print("randfab: case seed %d FAILED: %s" % (seed, msg))
            small = shrink(case, kind, a.pciesim, tmp, time.monotonic() + a.shrink_seconds)
            again = judge(small, a.pciesim, tmp, kind == "determinism")
            print("randfab: shrunk to %d nodes and %d flows (%s); the config:\n" % (
                len(small["nodes"]), len(small["flows"]), again[1] if again else "?"))
            print(render(small))
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                for name, c in (("case-%d.yaml" % seed, case), ("case-%d-shrunk.yaml" % seed, small)):
                    with open(os.path.join(a.keep, name), "w") as f:
                        f.write(render(c))
            return 1
    print("randfab: %d cases passed in %.1f s (seeds %d..%d)" % (n, time.monotonic() - start, a.seed,
                                                                 a.seed + n - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
