#!/usr/bin/env python3
"""PyTorch's own figures on the same GPU, for docs/results: a @ b and copy_, each timed two ways.

  seed:   seed 000's way: warm up, then torch.cuda.synchronize() around each run and a host
          timer; the median of 30 runs.
  events: CUDA events around each run; the median of 30 runs.

Writes JSON to the path given (default: stdout). Needs only torch.
"""
import json
import statistics
import sys
import time

import torch


def timed(fn, runs=30, warmup=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    host = []
    for _ in range(runs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        host.append((time.perf_counter() - t0) * 1e3)
    events = []
    for _ in range(runs):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        events.append(s.elapsed_time(e))
    return statistics.median(host), statistics.median(events)


def gemm(dtype, n, tf32=False):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.rand(n, n, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(dtype)
    b = torch.rand(n, n, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(dtype)
    c = a @ b
    ref = a[:64].double() @ b.double()
    err = ((c[:64].double() - ref).abs().max() / ref.abs().max()).item()
    host_ms, ev_ms = timed(lambda: torch.matmul(a, b, out=c))
    flop = 2.0 * n ** 3
    torch.backends.cuda.matmul.allow_tf32 = False
    return {"op": "matmul", "dtype": str(dtype).replace("torch.", "") + ("(tf32)" if tf32 else ""), "n": n,
            "seed_ms": host_ms, "events_ms": ev_ms, "seed_tflops": flop / host_ms / 1e9,
            "events_tflops": flop / ev_ms / 1e9, "max_rel_err": err}


def copy(nbytes, dtype=torch.float64):
    n = nbytes // torch.tensor([], dtype=dtype).element_size()
    src = torch.rand(n, device="cuda", dtype=dtype)
    dst = torch.empty_like(src)
    dst.copy_(src)
    assert torch.equal(dst[:: max(1, n // 4096)], src[:: max(1, n // 4096)])
    host_ms, ev_ms = timed(lambda: dst.copy_(src), runs=50)
    moved = 2.0 * nbytes  # read + write
    return {"op": "copy_", "dtype": str(dtype).replace("torch.", ""), "bytes": nbytes, "seed_ms": host_ms, "events_ms": ev_ms,
            "seed_bytes_per_s": moved / host_ms * 1e3, "events_bytes_per_s": moved / ev_ms * 1e3}


def h2d(nbytes):
    src = torch.empty(nbytes, dtype=torch.uint8).pin_memory()
    src.random_(0, 255)
    dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    host_ms, ev_ms = timed(lambda: dst.copy_(src, non_blocking=True), runs=20, warmup=3)
    return {"op": "h2d_pinned", "bytes": nbytes, "seed_ms": host_ms, "events_ms": ev_ms,
            "seed_bytes_per_s": nbytes / host_ms * 1e3, "events_bytes_per_s": nbytes / ev_ms * 1e3}


def main():
    out = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
           "cublas_note": "torch.matmul uses cuBLAS/cuBLASLt", "results": []}
    for n in (2048, 4096, 8192, 12288):
        for dt in (torch.float16, torch.bfloat16):
            out["results"].append(gemm(dt, n))
    for n in (4096, 8192):
        out["results"].append(gemm(torch.float32, n))
        out["results"].append(gemm(torch.float32, n, tf32=True))
        out["results"].append(gemm(torch.float64, n))
    for gib in (1, 4):
        out["results"].append(copy(gib << 30))
    out["results"].append(h2d(1 << 30))
    text = json.dumps(out, indent=2)
    if len(sys.argv) > 1:
        open(sys.argv[1], "w").write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
