#!/usr/bin/env python3
"""PyTorch CPU reference timings for RoPE on [1, 4096, 32, 128] float32, to compare with rv_bench (same tensor, GB/s of
tensor bytes). Meta's apply_rotary_emb (complex multiply) and Hugging Face's rotate_half, written from their
formulas."""
import sys
import time

try:
    import torch
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

B, T, H, D = 1, 4096, 32, 128
x = torch.randn(B, T, H, D, dtype=torch.float32)
nbytes = x.numel() * 4
freqs = 1.0 / (10000.0 ** (torch.arange(0, D, 2)[: D // 2].float() / D))
angles = torch.outer(torch.arange(T, dtype=torch.float32), freqs)  # [T, D/2]
freqs_cis = torch.polar(torch.ones_like(angles), angles)            # complex64 [T, D/2]
cos = torch.cat((angles, angles), dim=-1).cos()[None, :, None, :]   # [1, T, 1, D]
sin = torch.cat((angles, angles), dim=-1).sin()[None, :, None, :]


def meta_apply(xq):  # view_as_complex(xq) * freqs_cis, broadcast [1, T, 1, D/2]
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    return torch.view_as_real(xq_ * freqs_cis.view(1, T, 1, D // 2)).flatten(3).type_as(xq)


def rotate_half(v):
    v1, v2 = v[..., : D // 2], v[..., D // 2:]
    return torch.cat((-v2, v1), dim=-1)


def hf_apply(xq):
    return xq * cos + rotate_half(xq) * sin


def clone(xq):
    return xq.clone()


# Preallocated variants: the same kernels writing into reused buffers (no 64 MiB allocation and page faults per call).
dst = torch.empty_like(x)
out_c = torch.empty(B, T, H, D // 2, dtype=torch.complex64)
tmp_a, tmp_b = torch.empty_like(x), torch.empty_like(x)
fc = freqs_cis.view(1, T, 1, D // 2)


def clone_pre(xq):
    return dst.copy_(xq)


def meta_pre(xq):
    torch.mul(torch.view_as_complex(xq.reshape(B, T, H, D // 2, 2)), fc, out=out_c)
    return torch.view_as_real(out_c).flatten(3)


def hf_pre(xq):
    torch.mul(xq, cos, out=tmp_a)                                  # x * cos
    torch.neg(xq[..., D // 2:], out=tmp_b[..., : D // 2])          # rotate_half(x) = cat(-x2, x1)
    tmp_b[..., D // 2:].copy_(xq[..., : D // 2])
    return torch.addcmul(tmp_a, tmp_b, sin, out=dst)               # + rotate_half(x) * sin


def bench(fn, reps):
    for _ in range(2):
        fn(x)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


print("torch %s, %d thread(s), tensor [%d, %d, %d, %d] float32 = %.1f MiB" %
      (torch.__version__, torch.get_num_threads(), B, T, H, D, nbytes / 2**20))
for name, fn, reps in (("clone (allocating copy)", clone, 10),
                       ("copy_ into preallocated (memcpy baseline)", clone_pre, 30),
                       ("Meta apply_rotary_emb, as written", meta_apply, 10),
                       ("Meta complex mul, out= preallocated", meta_pre, 30),
                       ("HF x*cos + rotate_half(x)*sin, as written", hf_apply, 5),
                       ("HF rotate_half, out= preallocated", hf_pre, 20)):
    t = bench(fn, reps)
    print("%-44s median %8.2f ms  %6.2f GB/s" % (name, t * 1e3, nbytes / t / 1e9))
