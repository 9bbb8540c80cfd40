#!/usr/bin/env python3
"""On the GPU machine, after device.sh ran every plan: for each program,
the same computation in PyTorch eager on the same inputs (the reference the
outputs are checked against, and the peer that is timed with CUDA events
at the same clock), and one line of the table per program.

  python3 bench/runtime/torch_peer.py inputs STAGE     # before the plans run
  python3 bench/runtime/torch_peer.py STAGE OUT REPEAT
"""

import json
import math
import os
import re
import sys

import numpy as np
import torch

# The test library of this checkout (test/lib), from wherever this runs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "test", "lib"))

from sm_testing import corpus  # (the front-end corpus's float64 references)


def mlp(x, w, bias):
    return torch.relu((x @ w).float() + bias)


def attention(q, k, v):
    # As (1, heads, rows, d), the layout PyTorch's fused kernels take.
    return torch.nn.functional.scaled_dot_product_attention(
        q[None], k[None], v[None])[0]


def attention_mask(q, k, v, mask):
    # The mask is added to the scaled scores, shared by the heads.
    return torch.nn.functional.scaled_dot_product_attention(
        q[None], k[None], v[None], attn_mask=mask)[0]


def attention_bshd_gqa(q, k, v):
    # [batch, seq, heads, dim] in and out; each key-value head serves
    # heads / kv_heads query heads.
    group = q.shape[2] // k.shape[2]
    heads = [t.transpose(1, 2) for t in (q, k, v)]
    return torch.nn.functional.scaled_dot_product_attention(
        heads[0], heads[1].repeat_interleave(group, dim=1),
        heads[2].repeat_interleave(group, dim=1)).transpose(1, 2)


def attention_multi_query(q, k, v):
    # [batch, heads, seq, dim] queries, one [batch, seq, dim] key-value
    # head for all; the program applies no scale.
    heads = q.shape[1]
    return torch.nn.functional.scaled_dot_product_attention(
        q, k[:, None].expand(-1, heads, -1, -1),
        v[:, None].expand(-1, heads, -1, -1), scale=1.0).float()


def dequant(x, q, s):
    return (x @ (q.to(torch.float16) * s)).float()


def attention_causal(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(
        q[None], k[None], v[None], is_causal=True)[0]


def accumulate(a, b, c):
    # f16 products accumulated in f32 (cuBLAS), then the f32 add of C.
    return torch.matmul(a, b).float() + c


def linear_f16(a, w):
    return (a @ w.T).float()


def linear_int8(a, q, s):
    return (a @ (q.to(torch.float16) * s[:, None]).T).float()


def linear_int4(a, q, s):
    # Two 4-bit values per byte along K, the low nibble first, offset by 8;
    # one scale per group of K.
    bits = q.view(torch.uint8).to(torch.int16)
    low, high = (bits & 15) - 8, ((bits >> 4) & 15) - 8
    values = torch.stack([low, high], dim=-1).reshape(q.shape[0], -1)
    group = values.shape[1] // s.shape[1]
    w = values.to(torch.float16) * s.repeat_interleave(group, dim=1)
    return (a @ w.T).float()


def decode_weights(form, weights):
    """The dequantized weights of a decode program's arguments."""
    if form == "f16":
        return list(weights)
    dequantized = []
    for q, s in zip(weights[0::2], weights[1::2]):
        if form == "int8":
            values = q.to(torch.float16)
        else:
            bits = q.view(torch.uint8).to(torch.int16)
            low, high = (bits & 15) - 8, ((bits >> 4) & 15) - 8
            values = torch.stack([low, high], dim=-1).reshape(
                q.shape[0], -1).to(torch.float16)
        group = values.shape[1] // s.shape[1]
        dequantized.append(values * s.repeat_interleave(group, dim=1))
    return dequantized


def decode(form):
    """Every product of a decode program (its first result checked):
    dequantized, then cuBLAS's f16 product."""
    def products(a, *weights):
        results = [(a @ w.T).float() for w in decode_weights(form, weights)]
        return results[0]
    return products


def matmul_to_bf16(a, b):
    return a @ b


def matmul(a, b):
    return a @ b


_filters = {}


def conv3x3_nhwc(x, w):
    # NHWC memory seen as NCHW (channels-last, which cuDNN runs directly);
    # the HWCF filter converted once, outside the timed calls.
    key = w.data_ptr()
    if key not in _filters:
        _filters[key] = w.permute(3, 2, 0, 1).contiguous(
            memory_format=torch.channels_last)
    y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), _filters[key],
                                   padding=1)
    return y.permute(0, 2, 3, 1)


def matmul_to_f32(a, b):
    # cuBLAS accumulates in f32 and rounds to bf16: the check's tolerance
    # covers that rounding.
    return (a @ b).float()


def matmul_f32(a, b):
    torch.backends.cuda.matmul.allow_tf32 = False
    return a @ b


def matmul_f32_rounded_to_bf16(a, b):
    return (a.bfloat16() @ b.bfloat16()).float()


def chain(x, *weights):
    for w in weights:
        x = torch.relu((x @ w).float()).to(torch.float16)
    return x


_converted = {}


def converted(w, convert):
    """`convert(w)` (a filter in PyTorch's layout), made once per weight,
    outside the timed calls, as a model converts its weights when loaded."""
    key = (w.data_ptr(), convert)
    if key not in _converted:
        _converted[key] = convert(w)
    return _converted[key]


def hwcf_to_channels_last(w):
    return w.permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)


def dhwcf_to_channels_last(w):
    return w.permute(4, 3, 0, 1, 2).contiguous(
        memory_format=torch.channels_last_3d)


def wcf_to_fcw(w):
    return w.permute(2, 1, 0).contiguous()


# The front-end corpus (test/Integration/Corpus), each layer as a PyTorch
# user writes it in eager mode, in the program's element types.
def corpus_attention_scores(q, k, scale):
    return (q.permute(0, 2, 1, 3) @ k.permute(0, 2, 3, 1)).float() * scale


def corpus_sdpa_attn_mask(q, k, v, mask):
    # PyTorch's fused attention on the same f16 inputs and mask, with the
    # program's scale (1/8 at every head dimension).
    return torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=mask, scale=0.125).float()


def corpus_attention_context(probs, v):
    b, s, h, d = v.shape
    return (probs @ v.transpose(1, 2)).transpose(1, 2).reshape(b, s, h * d)


def corpus_head_projection(x, w, bias):
    return torch.einsum("bse,hde->bhsd", x, w).float() + bias[None, :, None]


def corpus_mlp_bf16(x, w1, b1, w2, b2):
    h = torch.nn.functional.gelu(torch.nn.functional.linear(x, w1, b1),
                                 approximate="tanh")
    return torch.nn.functional.linear(h, w2, b2)


def corpus_swiglu(x, w_gate, w_up, w_down):
    linear = torch.nn.functional.linear
    h = torch.nn.functional.silu(linear(x, w_gate)) * linear(x, w_up)
    return linear(h, w_down)


def corpus_linear_f32(x, w, bias):
    torch.backends.cuda.matmul.allow_tf32 = False
    return torch.relu(x @ w + bias)


def corpus_int8_projection(x, w, x_scale, w_scale, bias):
    # The int8 product on the tensor cores (torch._int_mm), its zero points
    # (-7, 1) as the same row and column sum corrections.
    k = x.shape[1]
    product = (torch._int_mm(x, w) - x.sum(1, keepdim=True, dtype=torch.int32)
               + 7 * w.sum(0, dtype=torch.int32) - 7 * k)
    return product.float() * (x_scale * w_scale) + bias


def corpus_bottleneck(x, w1, b1, w2, b2, w3, b3, ws, bs):
    conv = torch.nn.functional.conv2d
    f = [converted(w, hwcf_to_channels_last) for w in (w1, w2, w3, ws)]
    x = x.permute(0, 3, 1, 2)
    a = torch.relu(conv(x, f[0], b1))
    c = torch.relu(conv(a, f[1], b2, stride=2, padding=1))
    y = torch.relu(conv(c, f[2], b3) + conv(x, f[3], bs, stride=2))
    return y.permute(0, 2, 3, 1)


def corpus_aspp(x, w, b):
    return torch.nn.functional.conv2d(x, w, b, padding=2, dilation=2)


def corpus_grouped(x, w):
    return torch.nn.functional.conv2d(x, w, padding=1,
                                      groups=x.shape[1] // w.shape[1])


def corpus_video(x, w):
    y = torch.nn.functional.conv3d(x.permute(0, 4, 1, 2, 3),
                                   converted(w, dhwcf_to_channels_last),
                                   padding=1)
    return y.permute(0, 2, 3, 4, 1)


def corpus_stem(x, w, scale, shift):
    y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2),
                                   converted(w, hwcf_to_channels_last),
                                   stride=2, padding=3)
    y = torch.relu(y.float() * scale[:, None, None] + shift[:, None, None])
    return y.half().permute(0, 2, 3, 1)


def corpus_encoder(x, w):
    y = torch.nn.functional.conv1d(x.permute(0, 2, 1),
                                   converted(w, wcf_to_fcw), stride=2)
    return torch.nn.functional.gelu(y).permute(0, 2, 1)


def corpus_batch_scores_bf16(q, k):
    return (q @ k.transpose(1, 2)) * 0.125


def corpus_mlp_generics(x, w1, b1, w2, b2):
    linear = torch.nn.functional.linear
    h = torch.nn.functional.gelu(linear(x, w1).float() + b1).half()
    return (linear(h, w2).float() + b2).half()


def corpus_softmax(scores):
    return torch.softmax(scores, dim=-1)


def corpus_add_layer_norm(x, residual, gamma, beta):
    return torch.nn.functional.layer_norm(x + residual, gamma.shape, gamma,
                                          beta, eps=1e-12)


def corpus_rms_norm(hidden, weight):
    # HF LlamaRMSNorm.
    wide = hidden.float()
    wide = wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + 1e-6)
    return weight * wide.half()


def corpus_linear_int4(x, w, scales):
    group = w.shape[1] // scales.shape[1]
    dequantized = w.half() * scales.repeat_interleave(group, dim=1)
    return torch.nn.functional.linear(x, dequantized)


def corpus_layer_norm_f64(x, gamma, beta):
    centered = x - x.mean(-1, keepdim=True)
    variance = centered.double().pow(2).mean(-1, keepdim=True)
    return centered * torch.rsqrt(variance + 1e-12).float() * gamma + beta


def corpus_classify(features, w, b):
    logits = torch.nn.functional.linear(features.mean((1, 2)), w, b)
    return logits, logits.argmax(-1)


def corpus_mobilenet_block(x, dw, dw_bias, pw):
    functional = torch.nn.functional
    channels = x.shape[3]
    y = functional.conv2d(x.permute(0, 3, 1, 2),
                          dw.permute(2, 0, 1).unsqueeze(1), dw_bias,
                          padding=1, groups=channels)
    y = functional.conv2d(y.clamp(0, 6), pw.permute(0, 3, 1, 2))
    return functional.max_pool2d(y, 3, stride=2).permute(0, 2, 3, 1)


def corpus_basic_block_tflite(x, w1, b1, w2, b2):
    functional = torch.nn.functional
    torch.backends.cudnn.allow_tf32 = False
    nchw = x.permute(0, 3, 1, 2)
    y = functional.conv2d(nchw, w1.permute(0, 3, 1, 2), b1, padding=1)
    y = functional.conv2d(y.clamp(0, 6), w2.permute(0, 3, 1, 2), b2,
                          padding=1)
    y = torch.relu(y + nchw)
    return functional.max_pool2d(y, 2, stride=2).permute(0, 2, 3, 1)


def corpus_mlp_silu(x, w1, b1, w2, b2):
    functional = torch.nn.functional
    return functional.linear(functional.silu(functional.linear(x, w1, b1)),
                             w2, b2)


def corpus_self_attention(x, wq, wk, wv, wo, heads=4):
    torch.backends.cuda.matmul.allow_tf32 = False
    tokens, width = x.shape

    def split(t):
        return t.view(tokens, heads, width // heads).transpose(0, 1)
    q, k, v = (split(x @ w.T) for w in (wq, wk, wv))
    context = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    return context.transpose(0, 1).reshape(tokens, width) @ wo.T


def corpus_embed_norm(tokens, table, weight):
    return corpus_rms_norm(torch.nn.functional.embedding(tokens, table),
                           weight)


def corpus_normalize(x, bias, unused):
    scale = x.abs().amax()
    padded = torch.nn.functional.pad(torch.tanh(x / scale + bias),
                                     (0, 0, 1, 1))
    padded[0] = 2.0
    return padded, scale


def corpus_bert_layer(x, mask, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1,
                      b1, w2, b2, g2, be2):
    # HF BertLayer (eager attention), f32 without TF32.
    torch.backends.cuda.matmul.allow_tf32 = False
    linear, layer_norm = torch.nn.functional.linear, \
        torch.nn.functional.layer_norm
    b, s, h = x.shape

    def split(t):
        return t.view(b, s, h // 64, 64).transpose(1, 2)
    q, k, v = (split(linear(x, w, bias))
               for w, bias in ((wq, bq), (wk, bk), (wv, bv)))
    scores = q @ k.transpose(-1, -2) * 0.125 + mask[:, None, None, :]
    context = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, s, h)
    h1 = layer_norm(linear(context, wo, bo) + x, (h,), g1, be1, 1e-12)
    f = torch.nn.functional.gelu(linear(h1, w1, b1))
    return layer_norm(linear(f, w2, b2) + h1, (h,), g2, be2, 1e-12)


def corpus_llama_layer(x, cos, sin, norm1, wq, wk, wv, wo, norm2, wg, wu,
                       wd):
    # HF LlamaDecoderLayer with its default attention (SDPA, causal).
    functional = torch.nn.functional
    b, s, h = x.shape

    def rms_norm(t, weight):
        wide = t.float()
        wide = wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + 1e-5)
        return weight * wide.to(t.dtype)

    def split(t):
        return t.view(b, s, h // 128, 128).transpose(1, 2)

    def rope(t):
        return t * cos + torch.cat((-t[..., 64:], t[..., :64]), -1) * sin
    h1 = rms_norm(x, norm1)
    q, k, v = (split(functional.linear(h1, w)) for w in (wq, wk, wv))
    context = functional.scaled_dot_product_attention(rope(q), rope(k), v,
                                                      is_causal=True)
    res1 = x + functional.linear(context.transpose(1, 2).reshape(b, s, h), wo)
    h2 = rms_norm(res1, norm2)
    up = functional.silu(functional.linear(h2, wg)) * functional.linear(h2, wu)
    return res1 + functional.linear(up, wd)


FUNCTIONS = {"mlp": mlp, "attention": attention,
             "attention_mask": attention_mask,
             "attention_bshd_gqa": attention_bshd_gqa,
             "attention_multi_query": attention_multi_query,
             "attention_causal": attention_causal, "dequant": dequant,
             "chain": chain, "accumulate": accumulate,
             "linear_f16": linear_f16, "linear_int8": linear_int8,
             "linear_int4": linear_int4, "matmul_to_bf16": matmul_to_bf16,
             "matmul_to_f32": matmul_to_f32, "matmul_f32": matmul_f32,
             "matmul_f32_rounded_to_bf16": matmul_f32_rounded_to_bf16,
             "matmul": matmul, "conv3x3_nhwc": conv3x3_nhwc,
             "decode_f16": decode("f16"), "decode_int8": decode("int8"),
             "decode_int4": decode("int4")}
FUNCTIONS.update({name: function for name, function in globals().items()
                  if name.startswith("corpus_")})


def bfloat16_bits(values):
    """`values` (float32) rounded to bfloat16 (to nearest, ties to even),
    as the uint16 bits the runtime reads a bf16 array as."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def load_array(path):
    """An .npy the runtime reads or writes, as a tensor on the GPU: a uint16
    array holds bfloat16 bits."""
    array = np.load(path)
    if array.dtype == np.uint16:
        return torch.from_numpy(array.view(np.int16)).cuda().view(
            torch.bfloat16)
    return torch.from_numpy(array).cuda()


def time_torch(function, inputs, repeat):
    for _ in range(3):
        function(*inputs)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        function(*inputs)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000.0 / repeat


def time_compiled(function, inputs, repeat):
    """The time of `function` under torch.compile, as text: "n/a (why)"
    where it does not compile on this machine."""
    try:
        with torch.no_grad():
            compiled = torch.compile(function)
            return "%.1f" % time_torch(compiled, inputs, repeat)
    except Exception as error:  # Inductor needs Triton and a C compiler.
        return "n/a (%s)" % str(error).splitlines()[0][:80]


def make_inputs(stage):
    """Fresh random inputs of the staged shapes, in each plan's directory."""
    rng = np.random.default_rng()
    manifest = json.load(open(os.path.join(stage, "manifest.json")))
    for name, entry in manifest.items():
        for index, (shape, dtype, low, high) in enumerate(entry["inputs"]):
            if dtype.startswith("int"):
                # int4 arrays hold one value per byte.
                stored = "int8" if dtype == "int4" else dtype
                array = rng.integers(low, high + 1, shape).astype(stored)
            elif dtype == "bfloat16":
                array = bfloat16_bits(rng.uniform(low, high, shape))
            else:
                array = rng.uniform(low, high, shape).astype(dtype)
            np.save(os.path.join(stage, "plans", name,
                                 "input_%d.npy" % index), array)


def main():
    if sys.argv[1] == "inputs":
        return make_inputs(sys.argv[2])
    stage, out, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
    manifest = json.load(open(os.path.join(stage, "manifest.json")))
    print("%-36s %10s %10s %7s %8s %8s  %s" % (
        "program", "ours us", "torch us", "ratio", "ours TF/s", "torch TF/s",
        "check"))
    overheads = []
    compiled_times = {}
    for name, entry in manifest.items():
        directory = os.path.join(stage, "plans", name)
        inputs = [load_array(os.path.join(directory, "input_%d.npy" % i))
                  for i in range(len(entry["inputs"]))]
        function = FUNCTIONS[entry["function"]]
        is_corpus = entry.get("reference") == "corpus"
        with torch.no_grad():
            if not is_corpus:
                want = function(*inputs).double().cpu().numpy()
            peer = time_torch(function, inputs, repeat)
        text = None
        # torch.compile for the whole layers (the comparison; its
        # compile time would not fit the device's run for every program).
        if is_corpus and "layer" in name:
            compiled_times[name] = time_compiled(function, inputs, repeat)
        if is_corpus:
            # Checked against the corpus's float64 references instead.
            text = open(os.path.join(directory, "program.mlir")).read()
        log = open(os.path.join(out, name, "runner.log")).read()
        ours = re.search(r"time: ([0-9.]+) us", log)
        ours = float(ours.group(1)) if ours else math.nan
        result = os.path.join(out, name, entry.get("output", "result_0.npy"))
        if not os.path.exists(result):
            check = "FAILED: no output (%s)" % log.strip()[-300:]
        elif text:
            program = name[len("corpus_"):]
            results = [np.load(os.path.join(out, name, "result_%d.npy" % i))
                       for i in range(len(corpus.result_elements(text)))]
            ok, detail = corpus.check_results(
                program,
                [np.load(os.path.join(directory, "input_%d.npy" % i))
                 for i in range(len(entry["inputs"]))], text, results)
            check = "%s: %s" % ("PASSED" if ok else "FAILED", detail)
        else:
            got = load_array(result).double().cpu().numpy()
            error = np.abs(got - want)
            bad = ~(error <= entry["tolerance"] * np.maximum(1, np.abs(want)))
            check = "%s: %d elements, %d mismatches, max error %.3g" % (
                "PASSED" if not bad.any() else "FAILED", got.size,
                int(bad.sum()), float(np.nanmax(error)))
        flops = entry.get("flops", 0)
        print("%-36s %10.1f %10.1f %7.2f %8.1f %8.1f  %s" % (
            name, ours, peer, ours / peer, flops / ours / 1e6,
            flops / peer / 1e6, check), flush=True)
        # Launch overhead: the whole run (on the device, first step to
        # last; and on the host, submission to completion) against the sum
        # of its steps' times.
        steps = re.search(r"steps: ([0-9.]+) us summed; host: ([0-9.]+) us",
                          log)
        if steps:
            summed, host = float(steps.group(1)), float(steps.group(2))
            overheads.append("%-36s %3d steps: %9.1f us summed, run %9.1f us "
                             "(%.2fx), host %9.1f us (%.2fx)" % (
                                 name, log.count(" @"), summed, ours,
                                 ours / summed, host, host / summed))
    print()
    for line in overheads:
        print(line)
    if compiled_times:
        print()
        print("torch.compile (default mode), same inputs and repeats:")
        for name, compiled in compiled_times.items():
            print("%-36s %10s us" % (name, compiled))


if __name__ == "__main__":
    main()
