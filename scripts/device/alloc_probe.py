#!/usr/bin/env python3
"""PyTorch's caching allocator under a vLLM-shaped eager Llama forward: allocated peak and what
the allocator keeps reserved (what vLLM 0.6.3's free-memory accounting counts), for plan's
activation term. The op sequence mirrors vLLM's V0 Llama layer: fused add+RMSNorm in place, the
QKV GEMM, an attention output, o_proj, fused add+RMSNorm in place, gate_up, SiLU-and-mul into one
new tensor (gate_up freed, as LlamaMLP rebinds x), down_proj; the model's loop holds the previous
layer's output during the call.

  python3 scripts/device/alloc_probe.py OUT.json
"""
import json
import sys

import torch
import torch.nn.functional as F

GiB = float(1 << 30)
SHAPES = {
    # name: hidden, intermediate per GPU, q heads per GPU, kv heads per GPU, head dim, tokens
    "llama-3.1-8b tp1 20000 (vllm-issue10517: vLLM printed 2.07 GiB allocated)": (4096, 14336, 32, 8, 128, 20000),
    "llama-3.1-8b tp1 29000 (vllm-issue10517: vLLM printed 2.99 GiB allocated)": (4096, 14336, 32, 8, 128, 29000),
    "llama-3.1-405b tp8 131072 (lhl-mi300x-llama31-405b-tp8)": (16384, 6656, 16, 1, 128, 131072),
    "llama-2-7b tp1 4096 (lhl-mi300x-llama2-7b-tp1)": (4096, 11008, 32, 32, 128, 4096),
}


def probe(h, inter, qh, kvh, d, tokens, layers=6):
    dt, dev = torch.bfloat16, "cuda"
    torch.cuda.empty_cache()
    w_qkv = torch.empty(h, (qh + 2 * kvh) * d, dtype=dt, device=dev).normal_(0, 0.01)
    w_o = torch.empty(qh * d, h, dtype=dt, device=dev).normal_(0, 0.01)
    w_gu = torch.empty(h, 2 * inter, dtype=dt, device=dev).normal_(0, 0.01)
    w_d = torch.empty(inter, h, dtype=dt, device=dev).normal_(0, 0.01)
    torch.cuda.synchronize()
    base_alloc = torch.cuda.memory_allocated()
    base_reserved = torch.cuda.memory_reserved()
    torch.cuda.reset_peak_memory_stats()

    def norm_(x, r):  # vLLM's fused_add_rms_norm: both in place, nothing allocated
        r.add_(x)
        x.copy_(r)

    def attention(x):
        qkv = x @ w_qkv
        q = qkv[:, : qh * d]
        out = torch.empty(tokens, qh * d, dtype=dt, device=dev)
        out.copy_(q)  # the attention backend writes a new output tensor
        return out @ w_o

    def mlp(x):  # LlamaMLP.forward rebinds x: gate_up is freed before down_proj's output
        x = x @ w_gu
        act = F.silu(x[:, :inter])  # silu_and_mul: one new tensor of I
        act.mul_(x[:, inter:])
        x = act
        del act
        return x @ w_d

    def layer(hidden, residual):
        if residual is None:
            residual = hidden
            hidden = hidden.clone()
        else:
            norm_(hidden, residual)
        hidden = attention(hidden)
        norm_(hidden, residual)
        hidden = mlp(hidden)
        return hidden, residual

    with torch.inference_mode():
        hidden = torch.empty(tokens, h, dtype=dt, device=dev).normal_(0, 1)  # the embedding
        residual = None
        for _ in range(layers):
            hidden, residual = layer(hidden, residual)
        torch.cuda.synchronize()
        peak_alloc = torch.cuda.max_memory_allocated() - base_alloc
        reserved = torch.cuda.memory_reserved() - base_reserved
        del hidden, residual
    del w_qkv, w_o, w_gu, w_d
    torch.cuda.empty_cache()
    per_token = 2.0 * tokens
    return {
        "tokens": tokens,
        "allocated_peak_gib": peak_alloc / GiB,
        "reserved_after_gib": reserved / GiB,
        "fragmentation_gib": (reserved - peak_alloc) / GiB,
        "allocated_peak_in_hidden_units": (peak_alloc / per_token - 3 * inter) / h,
        "plan_3h_3i_gib": per_token * (3 * h + 3 * inter) / GiB,
        "phases_gib": per_token * max(3 * h + 3 * inter, 4 * h + inter) / GiB,
    }


def main():
    out = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
           "allocator": torch.cuda.get_allocator_backend(), "runs": {}}
    for name, shape in SHAPES.items():
        out["runs"][name] = probe(*shape)
        print(name, json.dumps(out["runs"][name]), flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
