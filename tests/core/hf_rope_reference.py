"""transformers' RoPE initialisation (modeling_rope_utils: default, linear, dynamic, yarn, longrope, llama3) written
again in float64 from its source, for the cross-checks (hf_rope_crosscheck.py, forward_crosscheck.py): config.json as
transformers sees it, in the legacy spelling."""
import math

import torch

# ---- the reference: config.json as transformers sees it ----------------------------------------------------------
ATTRIBUTE_MAP = {"hidden_size": ["n_embd", "dim"], "num_attention_heads": ["n_head", "n_heads"],
                 "max_position_embeddings": ["n_positions"]}
LEARNED = {"gpt2", "gpt_bigcode", "bert", "roberta", "distilbert", "opt"}


def get(cfg, key, default=None):
    if cfg.get(key) is not None:
        return cfg[key]
    for alias in ATTRIBUTE_MAP.get(key, []):
        if cfg.get(alias) is not None:
            return cfg[alias]
    return default


def rotary_dim_of(cfg):
    head_dim = get(cfg, "head_dim") or get(cfg, "hidden_size") // get(cfg, "num_attention_heads")
    frac = get(cfg, "partial_rotary_factor", get(cfg, "rotary_pct"))
    if frac is not None:
        return head_dim, int(head_dim * frac)
    if get(cfg, "rotary_dim") is not None:
        return head_dim, get(cfg, "rotary_dim")
    if get(cfg, "qk_rope_head_dim") is not None:
        return head_dim, get(cfg, "qk_rope_head_dim")
    return head_dim, head_dim


def base_of(cfg):
    return float(get(cfg, "rope_theta", get(cfg, "rotary_emb_base", 10000.0)))


def default_inv_freq(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))


def ref_rope(cfg, seq_len=None):
    """(head_dim, rotary_dims, base, rope_type, inv_freq, attention_factor)"""
    head_dim, dim = rotary_dim_of(cfg)
    base = base_of(cfg)
    rs = cfg.get("rope_scaling") or {}
    rope_type = rs.get("rope_type", rs.get("type", "default"))
    if rope_type == "su":
        rope_type = "longrope"
    if rope_type == "mrope":  # Qwen2-VL's config maps it to default
        rope_type = "default"
    max_pos = get(cfg, "max_position_embeddings")
    attention = 1.0
    if rope_type == "default":
        inv = default_inv_freq(base, dim)
    elif rope_type == "linear":
        inv = default_inv_freq(base, dim) / rs["factor"]
    elif rope_type == "dynamic":  # _compute_dynamic_ntk_parameters
        factor = rs["factor"]
        L = seq_len if seq_len is not None and seq_len > max_pos else max_pos
        base = base * ((factor * L / max_pos) - (factor - 1)) ** (dim / (dim - 2))
        inv = default_inv_freq(base, dim)
    elif rope_type == "yarn":  # _compute_yarn_parameters (factor as given)
        factor = rs["factor"]
        orig = rs.get("original_max_position_embeddings") or max_pos

        def get_mscale(scale, mscale=1):
            return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0

        attention = rs.get("attention_factor")
        mscale, mscale_all_dim = rs.get("mscale"), rs.get("mscale_all_dim")
        if attention is None:
            if mscale and mscale_all_dim:
                attention = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
            else:
                attention = get_mscale(factor)
        beta_fast = rs.get("beta_fast") or 32
        beta_slow = rs.get("beta_slow") or 1

        def corr_dim(n_rot):
            return (dim * math.log(orig / (n_rot * 2 * math.pi))) / (2 * math.log(base))

        low, high = corr_dim(beta_fast), corr_dim(beta_slow)
        if rs.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        if low == high:
            high += 0.001
        ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low), 0, 1)
        pos_freqs = base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
        extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
        extra_factor = 1 - ramp
        inv = inter * (1 - extra_factor) + extra * extra_factor
    elif rope_type == "longrope":  # _compute_longrope_parameters, as the contract states it
        orig = get(cfg, "original_max_position_embeddings") or rs.get("original_max_position_embeddings") or max_pos
        s = max_pos / orig
        attention = rs.get("attention_factor")
        if attention is None:
            attention = 1.0 if s <= 1.0 else math.sqrt(1 + math.log(s) / math.log(orig))
        ext = torch.tensor(rs["long_factor"] if seq_len and seq_len > orig else rs["short_factor"],
                           dtype=torch.float64)
        inv = 1.0 / (ext * base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))
    elif rope_type == "llama3":  # _compute_llama3_parameters
        inv = default_inv_freq(base, dim)
        factor, lo, hi = rs["factor"], rs.get("low_freq_factor", 1.0), rs.get("high_freq_factor", 4.0)
        old = rs["original_max_position_embeddings"]
        lo_wl, hi_wl = old / lo, old / hi
        wavelen = 2 * math.pi / inv
        inv_l = torch.where(wavelen > lo_wl, inv / factor, inv)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
        medium = ~(wavelen < hi_wl) * ~(wavelen > lo_wl)
        inv = torch.where(medium, smoothed, inv_l)
    else:
        raise ValueError(rope_type)
    return head_dim, dim, base_of(cfg), rope_type, inv, attention
