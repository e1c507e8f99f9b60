#!/usr/bin/env python3
"""Writes docs/results/h200.md from one device run's files (scripts/device/h200.sh):
r/h200.json (full suite), r/torch.json (PyTorch, same run), r/mem-<variant>.json, r/env.txt,
r/selftest.txt. Usage: report.py RESULTS_DIR OUTPUT.md

dcukit's JSON starts with a run_info object (tool, version, command, time, host, the
environment that changes results) and keeps parameters typed ("n": 8192); reports written
before that (the header's fields at the top level, "n": "8192") are read too.
"""
import json
import os
import sys

d, out_path = sys.argv[1], sys.argv[2]
bench = json.load(open(os.path.join(d, "h200.json")))
torch = json.load(open(os.path.join(d, "torch.json"))) if os.path.exists(os.path.join(d, "torch.json")) else None
env = open(os.path.join(d, "env.txt")).read() if os.path.exists(os.path.join(d, "env.txt")) else ""
info = bench.get("run_info", bench)  # older reports kept these fields at the top level
dev = bench["devices"][0]
res = dev["results"]
L = []
w = L.append


def same(a, b):
    """A parameter as the JSON holds it (a number, or text in older reports) against the one asked for."""
    return a is not None and str(a) == str(b)


def find(bm, **params):
    for m in res:
        if m["benchmark"] == bm and all(same(m["params"].get(k), v) for k, v in params.items()):
            return m
    return None


def pct(m):
    return "-" if m.get("percent_of_peak") is None else f"{m['percent_of_peak']:.1f}%"


w(f"# dcukit bench on {dev['name']}\n")
w(f"Measured {info['started_at']} with `{info['command']}` (dcukit {info['dcukit_version']}, suite {bench['suite']}), "
  f"in the same device-tool call as the PyTorch figures below. Raw results with every sample: `h200.json` beside this file.\n")
w("| what | value |\n| --- | --- |")
w(f"| card | {dev['name']} ({dev['arch']}), {dev['total_memory'] / 2**30:.1f} GiB, {dev['compute_units']} SMs, L2 {dev['l2_cache_bytes'] / 2**20:.0f} MiB |")
w(f"| bus | {dev['pci_bus_id']}, PCIe gen {dev['pcie_gen'] or 'not in sysfs'} x{dev['pcie_width'] or '-'}, NUMA node {dev['numa_node']} |")
for k, v in bench["versions"].items():
    w(f"| {k} | {v} |")
w(f"| host | {info['host']['cpu']}, {info['host']['cpus']} CPUs, {info['host']['os']}, kernel {info['host']['kernel']} |")
for k, v in info.get("environment", {}).items():
    w(f"| environment | `{k}={v}` |")
if torch:
    w(f"| PyTorch | {torch['torch']} (CUDA {torch['cuda']}) |")
w("")
quick = open(os.path.join(d, "h200-quick.txt")).read() if os.path.exists(os.path.join(d, "h200-quick.txt")) else ""
wall = [l for l in quick.splitlines() if l.startswith("quick suite wall")]
w("How: one call of the device tool ran `scripts/device/h200.sh` (PyTorch's figures first, on a cool card; then "
  "dcukit's self-test, the STREAM variants, the quick suite and the full suite), and `scripts/device/report.py` wrote this "
  "page from the files it returned." + (f" The default `dcukit bench` (quick suite) took {wall[0].split()[-2]} s of wall time." if wall else "") + "\n")
w("Peaks: " + (dev["peak_data"]["name"] + " — " + dev["peak_data"]["source"] if dev["peak_data"]["key"] else dev["peak_data"]["note"]) + "\n")

def rate(bm, **params):
    m = find(bm, **params)
    return m["rate"] if m and m["outcome"] == "ok" else None


def torch_rate(op, key, **match):
    for r in (torch or {}).get("results", []):
        if r["op"] == op and all(r.get(k) == v for k, v in match.items()):
            return r[key]
    return None


w("## Targets (issue: foundation)\n")
w("| target | measured | verdict |\n| --- | --- | --- |")
for prec, dt in (("bf16", "bfloat16"), ("fp16", "float16")):
    ours = rate("gemm", precision=prec, n=8192)
    ev = torch_rate("matmul", "events_tflops", dtype=dt, n=8192)
    seed = torch_rate("matmul", "seed_tflops", dtype=dt, n=8192)
    if ours and ev:
        ok = ours / 1e12 >= ev
        w(f"| GEMM {prec} N=8192 at least PyTorch's a @ b (events) | dcukit {ours / 1e12:.1f} TFLOPS; PyTorch {ev:.1f} (events), "
          f"{seed:.1f} (seed's way) | {'met' if ok else 'not met'}: ×{ours / 1e12 / ev:.3f} |")
BABEL = {"copy": 4.06e12, "triad": 4.37e12}
for k in ("copy", "triad"):
    ours = rate("memory", kernel=k, type="fp64", array_bytes=4 << 30)
    if ours:
        above = ours > BABEL[k]
        w(f"| {k} fp64 4 GiB above BabelStream 5.0 on this card ({BABEL[k] / 1e12:.2f} TB/s) | {ours / 1e12:.3f} TB/s | "
          f"{'met' if above else 'not met'}: ×{ours / BABEL[k]:.3f} |")
        w(f"| {k} at least 0.92 × 4.8 = 4.416 TB/s | {ours / 1e12:.3f} TB/s ({ours / 4.8e12 * 100:.1f}% of 4.8) | "
          f"{'met' if ours >= 4.416e12 else 'not met'} |")
for direction in ("H2D", "D2H"):
    ours = rate("transfer", direction=direction, memory="pinned", bytes=1 << 30)
    if ours:
        link = 63.0e9
        w(f"| {direction} pinned 1 GiB at least 0.85 × PCIe Gen5 x16 (53.55 GB/s) | {ours / 1e9:.2f} GB/s ({ours / link * 100:.1f}%) | "
          f"{'met' if ours >= 0.85 * link else 'not met'} |")
mc = rate("memory", kernel="d2d_memcpy", type="fp64", array_bytes=4 << 30)
tc = torch_rate("copy_", "events_bytes_per_s", bytes=4 << 30)
th = torch_rate("h2d_pinned", "events_bytes_per_s", bytes=1 << 30)
w("")
if mc and tc:
    w(f"For scale, in the same run: the driver's own device-to-device memcpy moved {mc / 1e12:.3f} TB/s and PyTorch's "
      f"`copy_` {tc / 1e12:.3f} TB/s (4 GiB, read + write); PyTorch's pinned H2D copy of 1 GiB moved "
      f"{(th or 0) / 1e9:.2f} GB/s.\n")

w("## GEMM\n")
w("C = A·B, square N, random inputs (never zeros), input sets rotated when they fit in L2, 5 warm-up and 30 timed runs "
  "with CUDA events, sampled outputs checked against a float64 reference. TFLOPS at the median time.\n")
w("| precision | N | median ms | min ms | max ms | TFLOPS | % peak | check |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for m in res:
    if m["benchmark"] != "gemm":
        continue
    p = m["params"]
    if m["outcome"] != "ok":
        w(f"| {p.get('precision', m['name'])} | {p.get('n', '-')} | | | | | | {m['outcome']}: {m['reason']} |")
        continue
    t = m["time_ms"]
    w(f"| {p['precision']} | {p['n']} | {t['median']:.3f} | {t['min']:.3f} | {t['max']:.3f} | {m['rate'] / 1e12:.1f} | {pct(m)} | {m['check']} |")

if torch:
    w("\n### Against PyTorch in the same run\n")
    w("PyTorch timed two ways: the seed's (synchronize around each run, host timer, median of 30) and with CUDA events "
      "(median of 30). Ratio = dcukit / PyTorch (events).\n")
    w("| op | dtype | N / size | PyTorch seed way | PyTorch events | dcukit | ratio |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    dmap = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float32(tf32)": "tf32", "float64": "fp64"}
    for r in torch["results"]:
        if r["op"] == "matmul":
            m = find("gemm", precision=dmap[r["dtype"]], n=r["n"])
            ours = m["rate"] / 1e12 if m and m["outcome"] == "ok" else None
            ratio = f"{ours / r['events_tflops']:.3f}" if ours else "-"
            w(f"| a @ b | {r['dtype']} | {r['n']} | {r['seed_tflops']:.1f} TFLOPS | {r['events_tflops']:.1f} TFLOPS | "
              f"{(f'{ours:.1f} TFLOPS' if ours else '-')} | {ratio} |")
        elif r["op"] == "copy_":
            m = find("memory", kernel="d2d_memcpy", type="fp64", array_bytes=r["bytes"])
            ours = m["rate"] / 1e12 if m and m["outcome"] == "ok" else None
            ratio = f"{ours / (r['events_bytes_per_s'] / 1e12):.3f}" if ours else "-"
            w(f"| copy_ (D2D, read+write) | {r['dtype']} | {r['bytes'] >> 30} GiB | {r['seed_bytes_per_s'] / 1e12:.2f} TB/s | "
              f"{r['events_bytes_per_s'] / 1e12:.2f} TB/s | {(f'{ours:.2f} TB/s' if ours else '-')} | {ratio} |")
        elif r["op"] == "h2d_pinned":
            m = find("transfer", direction="H2D", memory="pinned", bytes=r["bytes"])
            ours = m["rate"] / 1e9 if m and m["outcome"] == "ok" else None
            ratio = f"{ours / (r['events_bytes_per_s'] / 1e9):.3f}" if ours else "-"
            w(f"| copy_ H2D pinned | uint8 | {r['bytes'] >> 30} GiB | {r['seed_bytes_per_s'] / 1e9:.1f} GB/s | "
              f"{r['events_bytes_per_s'] / 1e9:.1f} GB/s | {(f'{ours:.1f} GB/s' if ours else '-')} | {ratio} |")

w("\n## Device memory\n")
w("Bytes read plus written; BabelStream's kernels and weights (copy 2, scale 2, add 3, triad 3, dot 2 arrays); 2 warm-up and 100 "
  "timed rounds; arrays checked against BabelStream's golden values. Targets: copy and triad above BabelStream 5.0 on this card "
  "(fp64 4 GiB: copy 4.06, triad 4.37 TB/s) and at least 0.92 × 4.8 = 4.42 TB/s.\n")
w("| kernel | type | array | median ms | TB/s | % of 4.8 TB/s |\n| --- | --- | ---: | ---: | ---: | ---: |")
for m in res:
    if m["benchmark"] != "memory":
        continue
    p = m["params"]
    if m["outcome"] != "ok":
        w(f"| {m['name']} | | | | | {m['outcome']}: {m['reason']} |")
        continue
    w(f"| {p['kernel']} | {p['type']} | {int(p['array_bytes']) >> 20} MiB | {m['time_ms']['median']:.3f} | {m['rate'] / 1e12:.3f} | {pct(m)} |")

variants = sorted(f[4:-5] for f in os.listdir(d) if f.startswith("mem-") and f.endswith(".json"))
if variants:
    w("\n### STREAM kernel variants, side by side (4 GiB arrays, 50 rounds, same run)\n")
    w("`DCUKIT_STREAM_VARIANT` selects the kernel shape (docs/backends.md). TB/s at the median.\n")
    kernels = ["d2d_memcpy", "copy", "scale", "add", "triad", "dot"]
    w("| variant | type | " + " | ".join(kernels) + " |\n| --- | --- |" + " ---: |" * len(kernels))
    for v in variants:
        vb = json.load(open(os.path.join(d, f"mem-{v}.json")))
        for t in ("fp64", "fp32"):
            row = []
            for k in kernels:
                m = next((m for m in vb["devices"][0]["results"] if m["params"].get("kernel") == k and m["params"].get("type") == t), None)
                row.append(f"{m['rate'] / 1e12:.3f}" if m and m["outcome"] == "ok" else "-")
            w(f"| {v} | {t} | " + " | ".join(row) + " |")

w("\n## Host/device transfers\n")
w("| direction | memory | node | size | median ms | GB/s | % of link |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for m in res:
    if m["benchmark"] != "transfer":
        continue
    p = m["params"]
    if m["outcome"] != "ok":
        w(f"| {m['name']} | | | | | | {m['outcome']}: {m['reason']} |")
        continue
    w(f"| {p['direction']} | {p['memory']} | {p['numa_node']} | {int(p['bytes']) >> 20} MiB | {m['time_ms']['median']:.3f} | {m['rate'] / 1e9:.1f} | {pct(m)} |")
notes = sorted({m["peak_note"] for m in res if m["benchmark"] == "transfer" and m["peak_note"]})
for n in notes:
    w(f"\n{n}.")

w("\n## Launch latency\n")
w("| what | median us | p99 us |\n| --- | ---: | ---: |")
for m in res:
    if m["benchmark"] == "latency" and m["outcome"] == "ok":
        w(f"| {m['name']} | {m['time_ms']['median'] * 1000:.2f} | {m['time_ms']['p99'] * 1000:.2f} |")

w("\n## Environment as read on the machine\n\n```\n" + env.strip() + "\n```\n")
open(out_path, "w").write("\n".join(L) + "\n")
print(f"wrote {out_path}")
