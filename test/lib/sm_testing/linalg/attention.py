"""Attention: one flash-attention kernel for the whole program, in the
forms models write it."""

import math
import re

from sm_testing.linalg.common import Case, memref, tensor


def truncation(result, source, empty, source_type, result_type, element,
               identity):
    """Lines of a function on tensors: `result` = `source` (f32, of
    `source_type`) truncated to `element`, into tensor.empty `empty`."""
    return """  %(empty)s = tensor.empty() : %(r)s
  %(result)s = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%(source)s : %(s)s) outs(%(empty)s : %(r)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%y = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%y : %(t)s
  } -> %(r)s
""" % dict(empty=empty, result=result, source=source, s=source_type,
           r=result_type, t=element, id=identity)


def attention_program(name, batch, sq, sk, d, t, causal, out, heads=None,
                      additive_mask=False, mask_type="f32"):
    """softmax(Q K^T / sqrt(d) [causal mask]) V as front-ends write it on
    tensors: two batch_matmuls around linalg.softmax, the scale (and mask)
    an element-wise op on the scores, P cast to the input type (unless
    f32), O cast to `out` (unless f32). With `heads`, Q, K, V and the
    result are batch/heads x heads x ... tensors, reshaped to and from the
    folded form; with `additive_mask`, a sq x sk mask of `mask_type` (f32,
    or f16 widened in the step; a fourth argument, shared by the batch) is
    added to the scaled scores."""
    text = attention_folded(name, batch, sq, sk, d, t, causal, out,
                            additive_mask, mask_type)
    if not heads:
        return text
    folded = lambda rows: tensor((batch, rows, d), t)  # noqa
    split = lambda rows, e=t: tensor((batch // heads, heads, rows, d), e)  # noqa
    r_folded, r_split = tensor((batch, sq, d), out), split(sq, out)
    header = text[:text.index("{\n") + 2]
    new_header = header
    for name_, rows in (("q", sq), ("k", sk), ("v", sk)):
        new_header = new_header.replace(
            "%%%s: %s" % (name_, folded(rows)),
            "%%%s4: %s" % (name_, split(rows)), 1)
    new_header = new_header.replace("-> %s {" % r_folded, "-> %s {" % r_split)
    for name_, rows in (("q", sq), ("k", sk), ("v", sk)):
        new_header += ("  %%%s = tensor.collapse_shape %%%s4 [[0, 1], [2], "
                       "[3]] : %s into %s\n" % (name_, name_, split(rows),
                                                folded(rows)))
    result = text[text.rindex("  return ") + 9:text.rindex(" : ")]
    tail = ("  %%split = tensor.expand_shape %s [[0, 1], [2], [3]] "
            "output_shape [%d, %d, %d, %d] : %s into %s\n"
            "  return %%split : %s\n}\n" % (
                result, batch // heads, heads, sq, d, r_folded, r_split,
                r_split))
    return new_header + text[len(header):text.rindex("  return ")] + tail


def attention_folded(name, batch, sq, sk, d, t, causal, out, additive_mask,
                     mask_type="f32"):
    q, kv = tensor((batch, sq, d), t), tensor((batch, sk, d), t)
    s_ty, p_ty = tensor((batch, sq, sk), "f32"), tensor((batch, sq, sk), t)
    o_ty, r_ty = tensor((batch, sq, d), "f32"), tensor((batch, sq, d), out)
    ident3 = "affine_map<(b, i, j) -> (b, i, j)>"
    mask = """
    %%i = linalg.index 1 : index
    %%j = linalg.index 2 : index
    %%above = arith.cmpi ugt, %%j, %%i : index
    %%ninf = arith.constant 0xFF800000 : f32
    %%y = arith.select %%above, %%ninf, %%scaled : f32""" if causal else """
    %%y = arith.addf %%scaled, %%bias : f32""" if additive_mask and \
        mask_type == "f32" else """
    %%wide = arith.extf %%bias : MASK_TYPE to f32
    %%y = arith.addf %%scaled, %%wide : f32""".replace(
        "MASK_TYPE", mask_type) if additive_mask else """
    %%y = arith.addf %%scaled, %%zero : f32"""
    mask_ty = tensor((sq, sk), mask_type)
    mask_argument = ", %%mask: %s" % mask_ty if additive_mask else ""
    mask_input = (", %%mask : %s, %s" % (s_ty, mask_ty) if additive_mask
                  else " : %s" % s_ty)
    mask_map = ", affine_map<(b, i, j) -> (i, j)>" if additive_mask else ""
    text = """func.func @%(name)s(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s%(mask_argument)s) -> %(r)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(s)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(s)s) -> %(s)s
  %%s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%%q, %%k : %(q)s, %(kv)s) outs(%%f : %(s)s) -> %(s)s
  %%e1 = tensor.empty() : %(s)s
  %%m = linalg.generic {indexing_maps = [%(id)s%(mask_map)s, %(id)s], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%s%(mask_input)s) outs(%%e1 : %(s)s) {
  ^bb0(%%x: f32%(mask_block)s, %%o: f32):
    %%c = arith.constant %(scale)r : f32
    %%scaled = arith.mulf %%x, %%c : f32%(mask)s
    linalg.yield %%y : f32
  } -> %(s)s
  %%e2 = tensor.empty() : %(s)s
  %%p = linalg.softmax dimension(2) ins(%%m : %(s)s) outs(%%e2 : %(s)s) -> %(s)s
""" % dict(name=name, q=q, kv=kv, s=s_ty, r=r_ty, id=ident3,
           scale=1.0 / math.sqrt(d), mask=mask % {},
           mask_argument=mask_argument, mask_input=mask_input,
           mask_map=mask_map,
           mask_block=", %%bias: %s" % mask_type if additive_mask else "")
    p_name = "%p"
    if t != "f32":
        text += truncation("%pn", "%p", "%e3", s_ty, p_ty, t, ident3)
        p_name = "%pn"
    text += """  %%e4 = tensor.empty() : %(o)s
  %%f4 = linalg.fill ins(%%zero : f32) outs(%%e4 : %(o)s) -> %(o)s
  %%out = linalg.batch_matmul ins(%(p)s, %%v : %(pt)s, %(kv)s) outs(%%f4 : %(o)s) -> %(o)s
""" % dict(o=o_ty, p=p_name, pt=p_ty, kv=kv)
    result = "%out"
    if out != "f32":
        text += truncation("%outn", "%out", "%e5", o_ty, r_ty, out, ident3)
        result = "%outn"
    text += "  return %s : %s\n}\n" % (result, r_ty)
    return text


def scaled_causal_body(scale, query_dim, key_dim):
    """The body of an element-wise op on scores %x: scaled, and -inf where
    the key (loop `key_dim`) is past the query (loop `query_dim`)."""
    return """    %%c = arith.constant %(scale)r : f32
    %%scaled = arith.mulf %%x, %%c : f32
    %%i = linalg.index %(query)d : index
    %%j = linalg.index %(key)d : index
    %%above = arith.cmpi ugt, %%j, %%i : index
    %%ninf = arith.constant 0xFF800000 : f32
    %%y = arith.select %%above, %%ninf, %%scaled : f32
    linalg.yield %%y : f32
""" % dict(scale=scale, query=query_dim, key=key_dim)


def generic_attention_program(b, h, sq, sk, d, t):
    """Causal attention on b x h x s x d tensors as linalg.generics: the
    products with (batch, heads, ...) loops, the scale and mask with
    linalg.index 2 and 3, a 4-D softmax, P cast to `t` (unless f32), the
    result in `t`."""
    q, kv = tensor((b, h, sq, d), t), tensor((b, h, sk, d), t)
    s_ty, p_ty = tensor((b, h, sq, sk), "f32"), tensor((b, h, sq, sk), t)
    o_ty, r_ty = tensor((b, h, sq, d), "f32"), tensor((b, h, sq, d), t)
    ident = "affine_map<(b, h, i, j) -> (b, h, i, j)>"
    parallel4 = '["parallel", "parallel", "parallel", "parallel"]'

    def product(name, a, a_ty, bb, b_ty, b_map, c, c_ty):
        widen = "" if t == "f32" else (
            "    %%a32 = arith.extf %%a : %(t)s to f32\n"
            "    %%b32 = arith.extf %%b : %(t)s to f32\n" % dict(t=t))
        x, y = ("%a", "%b") if t == "f32" else ("%a32", "%b32")
        return """  %(name)s = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, %(b_map)s, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%(a)s, %(bb)s : %(a_ty)s, %(b_ty)s) outs(%(c)s : %(c_ty)s) {
  ^bb0(%%a: %(t)s, %%b: %(t)s, %%c: f32):
%(widen)s    %%prod = arith.mulf %(x)s, %(y)s : f32
    %%r = arith.addf %%c, %%prod : f32
    linalg.yield %%r : f32
  } -> %(c_ty)s
""" % dict(name=name, a=a, a_ty=a_ty, bb=bb, b_ty=b_ty, b_map=b_map, c=c,
           c_ty=c_ty, t=t, widen=widen, x=x, y=y)

    def cast(name, source, source_ty, result_ty):
        return """  %(name)s_e = tensor.empty() : %(r)s
  %(name)s = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = %(it)s}
      ins(%(src)s : %(s)s) outs(%(name)s_e : %(r)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%y = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%y : %(t)s
  } -> %(r)s
""" % dict(name=name, r=result_ty, id=ident, it=parallel4, src=source,
           s=source_ty, t=t)

    text = """func.func @attention_4d_generic(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s) -> %(r)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(s)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(s)s) -> %(s)s
""" % dict(q=q, kv=kv, r=r_ty, s=s_ty)
    text += product("%s", "%q", q, "%k", kv,
                    "affine_map<(b, h, m, n, k) -> (b, h, n, k)>", "%f", s_ty)
    text += """  %%e1 = tensor.empty() : %(s)s
  %%m = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = %(it)s}
      ins(%%s : %(s)s) outs(%%e1 : %(s)s) {
  ^bb0(%%x: f32, %%o: f32):
%(body)s  } -> %(s)s
  %%e2 = tensor.empty() : %(s)s
  %%p = linalg.softmax dimension(3) ins(%%m : %(s)s) outs(%%e2 : %(s)s) -> %(s)s
""" % dict(s=s_ty, id=ident, it=parallel4,
           body=scaled_causal_body(1.0 / math.sqrt(d), 2, 3))
    p_name = "%p"
    if t != "f32":
        text += cast("%pn", "%p", s_ty, p_ty)
        p_name = "%pn"
    text += """  %%e4 = tensor.empty() : %(o)s
  %%f4 = linalg.fill ins(%%zero : f32) outs(%%e4 : %(o)s) -> %(o)s
""" % dict(o=o_ty)
    text += product("%out", p_name, p_ty, "%v", kv,
                    "affine_map<(b, h, m, n, k) -> (b, h, k, n)>", "%f4", o_ty)
    result = "%out"
    if t != "f32":
        text += cast("%outn", "%out", o_ty, r_ty)
        result = "%outn"
    return text + "  return %s : %s\n}\n" % (result, r_ty)


def layout_attention_program(name, b, sq, sk, heads, kv_heads, d, t, causal,
                             out, layout):
    """Attention on 4-D tensors as front-ends write it without folding the
    heads: `layout` "bshd" ([batch, seq, heads, dim], as JAX's einsums
    'BTNH,BSNH->BNTS' and 'BNTS,BSNH->BTNH' read and write it) or "bhsd";
    K and V with `kv_heads` heads, repeated for the query heads before the
    products as torch's repeat_kv writes it (a broadcast into a new
    dimension, collapsed into the heads) where there are fewer; the scale
    (and causal mask) on the scores, a 4-D softmax, P cast to `t`, the
    output narrowed to `out` (unless f32) in a copy of its own. `sq` or
    `sk` "?" makes the query or key count dynamic (a prompt's length, a KV
    cache's; read off Q and K)."""
    group = heads // kv_heads
    # Dynamic counts are written "?q" and "?k" until the end, so that each
    # tensor.empty can be given the sizes its type lacks, in order.
    sq = "?q" if sq == "?" else sq
    sk = "?k" if sk == "?" else sk

    def shaped(seq, n, element=t):
        dims = (b, seq, n, d) if layout == "bshd" else (b, n, seq, d)
        return tensor(dims, element)

    def operand_map(loops, seq):
        return "affine_map<(%s) -> (b, %s, d)>" % (
            loops, "%s, h" % seq if layout == "bshd" else "h, %s" % seq)

    scores, probabilities = (tensor((b, heads, sq, sk), "f32"),
                             tensor((b, heads, sq, sk), t))
    ident = "affine_map<(b, h, i, j) -> (b, h, i, j)>"
    parallel4 = '["parallel", "parallel", "parallel", "parallel"]'
    text = "func.func @%s(%%q: %s, %%k: %s, %%v: %s) -> %s {\n" % (
        name, shaped(sq, heads), shaped(sk, kv_heads), shaped(sk, kv_heads),
        shaped(sq, heads, out))
    text += "  %zero = arith.constant 0.0 : f32\n"
    keys, values = "%k", "%v"
    if group > 1:
        for operand in ("k", "v"):
            # [.., kv_heads, group, ..]: the new dimension right after the
            # heads, collapsed into them.
            if layout == "bshd":
                repeated = tensor((b, sk, kv_heads, group, d), t)
                source_map = "(b, s, g, r, d) -> (b, s, g, d)"
                loops = "(b, s, g, r, d)"
                groups = "[[0], [1], [2, 3], [4]]"
            else:
                repeated = tensor((b, kv_heads, group, sk, d), t)
                source_map = "(b, g, r, s, d) -> (b, g, s, d)"
                loops = "(b, g, r, s, d)"
                groups = "[[0], [1, 2], [3], [4]]"
            text += """  %%%(o)s_e = tensor.empty() : %(r)s
  %%%(o)s_r = linalg.generic {indexing_maps = [affine_map<%(src)s>, affine_map<%(loops)s -> %(loops)s>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%%%(o)s : %(kv)s) outs(%%%(o)s_e : %(r)s) {
  ^bb0(%%x: %(t)s, %%unused: %(t)s):
    linalg.yield %%x : %(t)s
  } -> %(r)s
  %%%(o)s_h = tensor.collapse_shape %%%(o)s_r %(groups)s : %(r)s into %(h)s
""" % dict(o=operand, r=repeated, src=source_map, loops=loops,
           kv=shaped(sk, kv_heads), t=t, groups=groups, h=shaped(sk, heads))
        keys, values = "%k_h", "%v_h"
    widen = "" if t == "f32" else (
        "    %%a32 = arith.extf %%a : %(t)s to f32\n"
        "    %%b32 = arith.extf %%b : %(t)s to f32\n" % dict(t=t))
    x, y = ("%a", "%b") if t == "f32" else ("%a32", "%b32")
    product_body = """  ^bb0(%%a: %(t)s, %%b: %(t)s, %%c: f32):
%(widen)s    %%prod = arith.mulf %(x)s, %(y)s : f32
    %%r = arith.addf %%c, %%prod : f32
    linalg.yield %%r : f32
""" % dict(t=t, widen=widen, x=x, y=y)
    mask = scaled_causal_body(1.0 / math.sqrt(d), 2, 3) if causal else (
        "    %%c = arith.constant %r : f32\n"
        "    %%y = arith.mulf %%x, %%c : f32\n"
        "    linalg.yield %%y : f32\n" % (1.0 / math.sqrt(d)))
    output = shaped(sq, heads, "f32")
    text += """  %%se = tensor.empty() : %(s)s
  %%sf = linalg.fill ins(%%zero : f32) outs(%%se : %(s)s) -> %(s)s
  %%s = linalg.generic {indexing_maps = [%(qm)s, %(km)s, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%%q, %(keys)s : %(q)s, %(kh)s) outs(%%sf : %(s)s) {
%(body)s  } -> %(s)s
  %%me = tensor.empty() : %(s)s
  %%m = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = %(it)s}
      ins(%%s : %(s)s) outs(%%me : %(s)s) {
  ^bb0(%%x: f32, %%o: f32):
%(mask)s  } -> %(s)s
  %%pe = tensor.empty() : %(s)s
  %%p = linalg.softmax dimension(3) ins(%%m : %(s)s) outs(%%pe : %(s)s) -> %(s)s
""" % dict(s=scores, qm=operand_map("b, h, i, j, d", "i"),
           km=operand_map("b, h, i, j, d", "j"), keys=keys,
           q=shaped(sq, heads), kh=shaped(sk, heads), body=product_body,
           id=ident, it=parallel4, mask=mask)
    p_name = "%p"
    if t != "f32":
        text += """  %%pne = tensor.empty() : %(p)s
  %%pn = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = %(it)s}
      ins(%%p : %(s)s) outs(%%pne : %(p)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%y = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%y : %(t)s
  } -> %(p)s
""" % dict(p=probabilities, s=scores, id=ident, it=parallel4, t=t)
        p_name = "%pn"
    text += """  %%oe = tensor.empty() : %(o)s
  %%of = linalg.fill ins(%%zero : f32) outs(%%oe : %(o)s) -> %(o)s
  %%out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, %(vm)s, %(om)s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%(p)s, %(values)s : %(pt)s, %(kh)s) outs(%%of : %(o)s) {
%(body)s  } -> %(o)s
""" % dict(o=output, vm=operand_map("b, h, i, d, j", "j"),
           om=operand_map("b, h, i, d, j", "i"), p=p_name, values=values,
           pt=probabilities if t != "f32" else scores, kh=shaped(sk, heads),
           body=product_body)
    result = "%out"
    if out != "f32":
        narrowed = shaped(sq, heads, out)
        text += """  %%ne = tensor.empty() : %(n)s
  %%outn = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = %(it)s}
      ins(%%out : %(o)s) outs(%%ne : %(n)s) {
  ^bb0(%%x: f32, %%unused: %(t)s):
    %%y = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%y : %(t)s
  } -> %(n)s
""" % dict(n=narrowed, o=output, id=ident, it=parallel4, t=out)
        result = "%outn"
    text += "  return %s : %s\n}\n" % (result, shaped(sq, heads, out))
    # The dynamic counts off Q and K, for every tensor that has them.
    sizes = ""
    for count, operand, n in (("sq", "%q", heads), ("sk", "%k", kv_heads)):
        seq = sq if count == "sq" else sk
        if seq == "?" + count[1]:
            sizes += ("  %%%s = tensor.dim %s, %%seq_dim : %s\n" % (
                count, operand, shaped(seq, n)))
    if sizes:
        text = text.replace(
            "  %zero = arith.constant 0.0 : f32\n",
            "  %%zero = arith.constant 0.0 : f32\n"
            "  %%seq_dim = arith.constant %d : index\n" % (
                1 if layout == "bshd" else 2) + sizes, 1)
        text = re.sub(
            r"tensor\.empty\(\) : (tensor<[^>]*>)",
            lambda m: "tensor.empty(%s) : %s" % (", ".join(
                "%s" + token[1] for token in re.findall(r"\?[qk]",
                                                         m.group(1))),
                m.group(1)), text)
    return text.replace("?q", "?").replace("?k", "?")


def layout_attention_reference(x, b, sq, sk, heads, kv_heads, d, causal,
                               layout):
    """The reference of layout_attention_program: K and V's heads repeated,
    everything brought into the folded form and back."""
    import numpy as np

    def folded(values, seq, n):
        shape = (b, seq, n, d) if layout == "bshd" else (b, n, seq, d)
        array = np.asarray(values, dtype=np.float64).reshape(shape)
        if layout == "bshd":
            array = array.transpose(0, 2, 1, 3)
        return np.repeat(array, heads // n, axis=1)

    q, k, v = (folded(x[0], sq, heads), folded(x[1], sk, kv_heads),
               folded(x[2], sk, kv_heads))
    scores = np.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(d)
    if causal:
        scores = np.where(np.triu(np.ones((sq, sk), dtype=bool), 1), -np.inf,
                          scores)
    scores = np.exp(scores - scores.max(axis=3, keepdims=True))
    result = np.einsum("bhij,bhjd->bhid",
                       scores / scores.sum(axis=3, keepdims=True), v)
    if layout == "bshd":
        result = result.transpose(0, 2, 1, 3)
    return list(result.reshape(-1))


def attention_reference(x, batch, sq, sk, d, causal):
    """The naive three steps in double precision (a fourth input is an
    additive sq x sk mask)."""
    q, k, v = x[:3]
    mask = x[3] if len(x) > 3 else None
    out = []
    scale = 1.0 / math.sqrt(d)
    for b in range(batch):
        for i in range(sq):
            qi = q[(b * sq + i) * d:(b * sq + i + 1) * d]
            scores = []
            for j in range(sk):
                if causal and j > i:
                    scores.append(-math.inf)
                    continue
                kj = k[(b * sk + j) * d:(b * sk + j + 1) * d]
                scores.append(scale * sum(a * c for a, c in zip(qi, kj)) +
                              (mask[i * sk + j] if mask else 0.0))
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            total = sum(e)
            for c in range(d):
                out.append(sum(e[j] * v[(b * sk + j) * d + c]
                               for j in range(sk)) / total)
    return out


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
    cases = []
    # Attention: one flash-attention kernel for the whole program (scores
    # and probabilities never reach memory). Ragged lengths (queries !=
    # keys, neither a multiple of the blocks), a causal mask written with
    # linalg.index, head dimensions 64 and 128, an f16 output.
    # Both forms of the online softmax (result matrices; scalars through
    # workgroup memory, the Vulkan default) run on every path, with other
    # subgroup counts and key blocks.
    # Where the target has VK_NV_cooperative_matrix2 flexible dimensions,
    # also two matrix heights of queries per subgroup.
    flexible_rows = {"cpu-lavapipe-coopmat": 16, "nvidia-h100": 32}
    shapes = [
            ("attention_ragged", (2, 37, 45, 64, False, "f32"), ""),
            ("attention_causal", (2, 70, 70, 64, True, "f32"), ""),
            ("attention_d128_f16_out", (1, 40, 100, 128, False,
                                         t if t != "f32" else "f32"), ""),
            ("attention_registers_causal", (2, 70, 45, 64, True, "f32"),
             "attention-softmax=registers attention-key-block=32"),
            ("attention_workgroup_memory_2_subgroups",
             (3, 50, 77, 64, True, "f32"),
             "attention-softmax=workgroup-memory attention-subgroups=2"),
            ("attention_workgroup_memory_causal",
             (2, 70, 45, 64, True, "f32"),
             "attention-softmax=workgroup-memory"),
            ("attention_workgroup_memory_block_16",
             (1, 33, 40, 64, False, "f32"),
             "attention-softmax=workgroup-memory attention-key-block=16 "
             "attention-subgroups=1")]
    if target in flexible_rows:
        shapes.append(("attention_flexible_rows",
                       (2, 50, 77, 64, False, "f32"),
                       "attention-subgroup-rows=%d" % flexible_rows[target]))
    for an, (ab, asq, ask, ad, causal, out), aoptions in shapes:
        cases.append(Case(
            an, attention_program(an, ab, asq, ask, ad, t, causal, out),
            [("q", (ab, asq, ad), t, unit), ("k", (ab, ask, ad), t, unit),
             ("v", (ab, ask, ad), t, unit)],
            ((ab, asq, ad), out),
            lambda x, ab=ab, asq=asq, ask=ask, ad=ad, causal=causal:
                attention_reference(x, ab, asq, ask, ad, causal),
            2e-3, options=aoptions))
    # Heads as their own dimension (reshaped to and from the folded form,
    # as front-ends write it) with an additive mask shared by the batch,
    # which the kernel reads at (query, key); and bf16 inputs where the
    # target multiplies them.
    mb, mh, msq, msk, md = 4, 2, 37, 75, 64
    cases.append(Case(
        "attention_heads_additive_mask",
        attention_program("attention_heads_additive_mask", mb, msq, msk, md,
                          t, False, "f32", heads=mh, additive_mask=True),
        [("q", (mb // mh, mh, msq, md), t, unit),
         ("k", (mb // mh, mh, msk, md), t, unit),
         ("v", (mb // mh, mh, msk, md), t, unit),
         ("mask", (msq, msk), "f32", (-4.0, 0.0))],
        ((mb // mh, mh, msq, md), "f32"),
        lambda x: attention_reference(x, mb, msq, msk, md, False), 2e-3))
    # The same mask over whole blocks of queries and keys (128 of each),
    # each key contiguous: it is read as matrices of the scores' shape and
    # joins the softmax on result matrices where the target has one
    # (cooperative matrix 2; the Intel and Metal paths).
    bb, bh, bsq, bsk, bd = 4, 2, 128, 128, 64
    cases.append(Case(
        "attention_additive_mask_blocks",
        attention_program("attention_additive_mask_blocks", bb, bsq, bsk, bd,
                          t, False, "f32", heads=bh, additive_mask=True),
        [("q", (bb // bh, bh, bsq, bd), t, unit),
         ("k", (bb // bh, bh, bsk, bd), t, unit),
         ("v", (bb // bh, bh, bsk, bd), t, unit),
         ("mask", (bsq, bsk), "f32", (-4.0, 0.0))],
        ((bb // bh, bh, bsq, bd), "f32"),
        lambda x: attention_reference(x, bb, bsq, bsk, bd, False), 2e-3))
    # An f16 mask (as ggml's attention takes it), widened in the step.
    cases.append(Case(
        "attention_f16_mask_blocks",
        attention_program("attention_f16_mask_blocks", 2, bsq, bsk, bd, t,
                          False, "f32", additive_mask=True, mask_type="f16"),
        [("q", (2, bsq, bd), t, unit), ("k", (2, bsk, bd), t, unit),
         ("v", (2, bsk, bd), t, unit), ("mask", (bsq, bsk), "f16", (-4.0, 0.0))],
        ((2, bsq, bd), "f32"),
        lambda x: attention_reference(x, 2, bsq, bsk, bd, False), 2e-3))
    # NaN and -inf in the mask: the row with a NaN score (in the first key
    # block, and in the second) is NaN throughout, as is a row masked
    # entirely (0 / 0); a row masked but for one key is that key's V. The
    # kernels' maxima may ignore NaN (the probability exp(NaN - m) carries
    # it to the row whatever the maximum is): this shows it does.
    nan, inf = float("nan"), float("inf")
    specials = {3 * bsk + 5: nan, 70 * bsk + 100: nan}
    specials.update({9 * bsk + j: -inf for j in range(bsk)})
    specials.update({20 * bsk + j: -inf for j in range(bsk) if j != 90})
    cases.append(Case(
        "attention_mask_nan_and_masked_rows",
        attention_program("attention_mask_nan_and_masked_rows", 2, bsq, bsk,
                          bd, t, False, "f32", additive_mask=True),
        [("q", (2, bsq, bd), t, unit), ("k", (2, bsk, bd), t, unit),
         ("v", (2, bsk, bd), t, unit),
         ("mask", (bsq, bsk), "f32", (-4.0, 0.0, specials))],
        ((2, bsq, bd), "f32"),
        lambda x: attention_reference(x, 2, bsq, bsk, bd, False), 2e-3))
    if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe", "apple-m1"):
        cases.append(Case(
            "attention_bf16_causal_heads",
            attention_program("attention_bf16_causal_heads", 2, 50, 50, 128,
                              "bf16", True, "bf16", heads=2),
            [("q", (1, 2, 50, 128), "bf16", unit),
             ("k", (1, 2, 50, 128), "bf16", unit),
             ("v", (1, 2, 50, 128), "bf16", unit)],
            ((1, 2, 50, 128), "bf16"),
            lambda x: attention_reference(x, 2, 50, 50, 128, True), 1e-2))

    # Decode attention: a few query rows per head split their keys over
    # workgroups (runs as long as keep two per compute unit), a second kernel
    # combining the runs.
    # Grouped-query heads in [batch, seq, heads, dim] with 300 keys (a short
    # last run); two query rows and an additive mask; fewer keys than a run
    # and an f16 output; a causal mask that leaves most runs without a key;
    # more output elements per head than the combining kernel has
    # invocations (4 rows x 256), combined from five runs.
    for dn, (db, dsq, dsk, dd, causal, out), dmask in [
            ("decode_attention_mask_rows_2",
             (4, 2, 512, 128, False, "f32"), True),
            ("decode_attention_f16_out", (3, 1, 40, 128, False, t), False),
            ("decode_attention_causal_rows_3",
             (2, 3, 600, 64, True, "f32"), False),
            ("decode_attention_rows_4_dim_256",
             (2, 4, 1100, 256, False, "f32"), False)]:
        inputs = [("q", (db, dsq, dd), t, unit), ("k", (db, dsk, dd), t, unit),
                  ("v", (db, dsk, dd), t, unit)]
        if dmask:
            inputs = [(n, (db // 2, 2) + shape[1:], e, r)
                      for n, shape, e, r in inputs]
            inputs.append(("mask", (dsq, dsk), "f32", (-4.0, 0.0)))
        cases.append(Case(
            dn, attention_program(dn, db, dsq, dsk, dd, t, causal, out,
                                  heads=2 if dmask else None,
                                  additive_mask=dmask),
            inputs,
            ((db // 2, 2, dsq, dd) if dmask else (db, dsq, dd), out),
            lambda x, a=(db, dsq, dsk, dd, causal):
                attention_reference(x, *a),
            1e-2 if out != "f32" else 2e-3, launches=2))
    cases.append(Case(
        "decode_attention_gqa_bshd",
        layout_attention_program("decode_attention_gqa_bshd", 1, 1, 300, 8,
                                 2, 64, t, False, "f32", "bshd"),
        [("q", (1, 1, 8, 64), t, unit), ("k", (1, 300, 2, 64), t, unit),
         ("v", (1, 300, 2, 64), t, unit)],
        ((1, 1, 8, 64), "f32"),
        lambda x: layout_attention_reference(x, 1, 1, 300, 8, 2, 64, False,
                                             "bshd"),
        2e-3, launches=2))
    # The same against a KV cache whose length is known only at run time:
    # the transposes and repeats of dynamic shape are read through too.

    def cache_variant(sk):
        return ([("q", (1, 1, 8, 64), t, unit), ("k", (1, sk, 2, 64), t, unit),
                 ("v", (1, sk, 2, 64), t, unit)],
                lambda x: layout_attention_reference(x, 1, 1, sk, 8, 2, 64,
                                                     False, "bshd"))
    cases.append(Case(
        "decode_attention_gqa_bshd_dynamic_keys",
        layout_attention_program("decode_attention_gqa_bshd_dynamic_keys", 1,
                                 1, "?", 8, 2, 64, t, False, "f32", "bshd"),
        None, None, None, 2e-3, launches=2,
        variants=[cache_variant(sk) for sk in (1, 40, 300, 1500)]))

    # Attention on 4-D tensors written with linalg.generic contractions
    # over (batch, heads, ...) and a 4-D softmax: the two leading loops are
    # folded into one before the kernel is formed.
    gb, gh, gsq, gsk, gd = 2, 3, 40, 50, 64
    text = generic_attention_program(gb, gh, gsq, gsk, gd, t)
    cases.append(Case(
        "attention_4d_generic", text,
        [("q", (gb, gh, gsq, gd), t, unit), ("k", (gb, gh, gsk, gd), t, unit),
         ("v", (gb, gh, gsk, gd), t, unit)],
        ((gb, gh, gsq, gd), t),
        lambda x: attention_reference(x, gb * gh, gsq, gsk, gd, True),
        1e-2 if t != "f32" else 2e-3))

    # Attention on [batch, seq, heads, dim] tensors (JAX's einsums), and
    # grouped- and multi-query attention (K and V heads repeated as torch
    # writes it): one kernel that reads Q, K and V where the program keeps
    # them and writes the output there (the transposes and repeats are
    # never made), the output narrowed on the way.
    for ln, (lb, lsq, lsk, lh, lkv, ld, causal, out, layout) in [
            ("attention_bshd_f16_out",
             (2, 40, 50, 3, 3, 64, False, t, "bshd")),
            # Whole query blocks: Q loads from its buffer, not staged.
            ("attention_gqa_bshd_causal",
             (1, 128, 128, 4, 2, 64, True, "f32", "bshd")),
            ("attention_gqa_bhsd", (2, 33, 45, 6, 2, 128, False, t, "bhsd")),
            ("attention_mqa_bhsd", (2, 33, 45, 4, 1, 128, False, t, "bhsd"))]:
        def shape(seq, n, lb=lb, ld=ld, layout=layout):
            return (lb, seq, n, ld) if layout == "bshd" else (lb, n, seq, ld)
        cases.append(Case(
            ln, layout_attention_program(ln, lb, lsq, lsk, lh, lkv, ld, t,
                                         causal, out, layout),
            [("q", shape(lsq, lh), t, unit), ("k", shape(lsk, lkv), t, unit),
             ("v", shape(lsk, lkv), t, unit)],
            (shape(lsq, lh), out),
            lambda x, a=(lb, lsq, lsk, lh, lkv, ld, causal, layout):
                layout_attention_reference(x, *a),
            1e-2 if out != "f32" else 2e-3,
            # One key-value head: the repeat's unit dimension keeps the
            # products from folding their batch loops (not yet one kernel).
            launches=None if lkv == 1 else 1))
    # A prompt of any length against a cache of any length (both known only
    # at run time, as a prefill function is compiled once): the copies of
    # dynamic shape (the transposes, the repeated key-value heads) are read
    # through, one kernel.

    def prompt_variant(sq, sk):
        def shape(seq, n):
            return (1, seq, n, 64)
        return ([("q", shape(sq, 4), t, unit), ("k", shape(sk, 2), t, unit),
                 ("v", shape(sk, 2), t, unit)],
                lambda x: layout_attention_reference(x, 1, sq, sk, 4, 2, 64,
                                                     True, "bshd"))
    cases.append(Case(
        "attention_gqa_bshd_dynamic_lengths",
        layout_attention_program("attention_gqa_bshd_dynamic_lengths", 1,
                                 "?", "?", 4, 2, 64, t, True, "f32", "bshd"),
        None, None, None, 2e-3, launches=1,
        variants=[prompt_variant(*size) for size in
                  [(1, 77), (37, 45), (70, 70), (130, 200)]]))
    # Head dimensions of models besides 64 and 128 (Phi's 80, 96, Gemma's
    # 256).
    for hd in (80, 96, 256):
        an = "attention_d%d" % hd
        cases.append(Case(
            an, attention_program(an, 2, 37, 45, hd, t, True, "f32"),
            [("q", (2, 37, hd), t, unit), ("k", (2, 45, hd), t, unit),
             ("v", (2, 45, hd), t, unit)],
            ((2, 37, hd), "f32"),
            lambda x, hd=hd: attention_reference(x, 2, 37, 45, hd, True),
            2e-3))

    # Attention with dynamic sequence lengths (a decode step's one query
    # against a growing cache included), compiled once, on memrefs.
    ab_, ad_ = 2, 64

    def dynamic_attention_program(name, sq, body):
        """Attention of `ab_` heads with `sk` keys dynamic and `sq` queries
        ("?" for dynamic), the scores through `body`."""
        q_, kv_ = memref((ab_, sq, ad_), t), memref((ab_, "?", ad_), t)
        s_, p_ = memref((ab_, sq, "?"), "f32"), memref((ab_, sq, "?"), t)
        o_ = memref((ab_, sq, ad_), "f32")
        sizes = "%sq, %sk" if sq == "?" else "%sk"
        cast_p = """  %%pn = memref.alloc(%(sizes)s) : %(p)s
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%p : %(s)s) outs(%%pn : %(p)s) {
  ^bb0(%%x: f32, %%y: %(t)s):
    %%n = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%n : %(t)s
  }
""" % dict(p=p_, s=s_, t=t, sizes=sizes) if t != "f32" else ""
        query_count = ("  %%sq = memref.dim %%q, %%c1 : %s\n" % q_
                       if sq == "?" else "")
        return """func.func @%(name)s(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s, %%o: %(o)s) {
  %%zero = arith.constant 0.0 : f32
  %%c1 = arith.constant 1 : index
%(query_count)s  %%sk = memref.dim %%k, %%c1 : %(kv)s
  %%s = memref.alloc(%(sizes)s) : %(s)s
  linalg.fill ins(%%zero : f32) outs(%%s : %(s)s)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%%q, %%k : %(q)s, %(kv)s) outs(%%s : %(s)s)
  %%m = memref.alloc(%(sizes)s) : %(s)s
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%s : %(s)s) outs(%%m : %(s)s) {
  ^bb0(%%x: f32, %%unused: f32):
%(body)s  }
  %%p = memref.alloc(%(sizes)s) : %(s)s
  linalg.softmax dimension(2) ins(%%m : %(s)s) outs(%%p : %(s)s)
%(cast_p)s  linalg.fill ins(%%zero : f32) outs(%%o : %(o)s)
  linalg.batch_matmul ins(%(pv)s, %%v : %(p)s, %(kv)s) outs(%%o : %(o)s)
  return
}
""" % dict(name=name, q=q_, kv=kv_, s=s_, p=p_ if t != "f32" else s_, o=o_,
           body=body, cast_p=cast_p, sizes=sizes, query_count=query_count,
           pv="%pn" if t != "f32" else "%p")

    def attention_variant(sq, sk, causal=True):
        return ([("q", (ab_, sq, ad_), t, unit), ("k", (ab_, sk, ad_), t, unit),
                 ("v", (ab_, sk, ad_), t, unit),
                 ("o", (ab_, sq, ad_), "f32", unit)],
                lambda x: attention_reference(x[:3], ab_, sq, sk, ad_, causal))
    cases.append(Case("attention_dynamic_lengths",
                      dynamic_attention_program(
                          "attention_dynamic_lengths", "?",
                          scaled_causal_body(1.0 / math.sqrt(ad_), 1, 2)),
                      None, None, None, 2e-3,
                      variants=[attention_variant(*size) for size in
                                [(1, 77), (37, 45), (70, 70), (130, 200)]]))
    # The decode kernels at a dynamic key count (a KV cache's length): the
    # same workgroups share whatever keys there are - fewer keys than
    # runs, a step, ragged runs, many runs' worth - in two launches.
    scale_body = """    %%c = arith.constant %r : f32
    %%y = arith.mulf %%x, %%c : f32
    linalg.yield %%y : f32
""" % (1.0 / math.sqrt(ad_))
    cases.append(Case("decode_attention_dynamic_keys",
                      dynamic_attention_program(
                          "decode_attention_dynamic_keys", 2, scale_body),
                      None, None, None, 2e-3, launches=2,
                      variants=[attention_variant(2, sk, False) for sk in
                                [1, 5, 33, 300, 2049]]))
    # apple-m1 has no f16 -> f32 matrices: its products widen their
    # operands into f32 ones (chooseProductForm), which the attention
    # kernel does not, so attention runs as its products and softmax
    # kernels there, as many as the program's form makes.
    if target == "apple-m1" and t != "f32":
        for case in cases:
            case.launches = None
    return cases
