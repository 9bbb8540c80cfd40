"""Convolutions: 1x1 (plain GEMMs) and implicit GEMMs in every layout
linalg names, strided, dilated, padded, 1-D, 3-D and grouped."""

import numpy as np

from sm_testing.linalg.common import Case, matmul_reference, tensor


def convolution_program(name, op, layouts, shapes, strides, dilations, pads,
                        t, acc):
    """linalg.`op` on tensors of `shapes` (x, filter, y), the input padded
    by `pads` (low = high, per spatial dimension) through tensor.pad."""
    x, f, y = (tensor(shapes[0], t), tensor(shapes[1], t),
               tensor(shapes[2], acc))
    spatial = len(strides)
    source, pad = "%x", ""
    if any(pads):
        x_layout = layouts[0]
        low = ["0"] * len(x_layout)
        for position, letter in enumerate(l for l in x_layout if l in "dhw"):
            low[x_layout.index(letter)] = str(pads[position])
        padded_shape = list(shapes[0])
        for letter, amount in zip([l for l in x_layout if l in "dhw"], pads):
            padded_shape[x_layout.index(letter)] += 2 * amount
        padded = tensor(padded_shape, t)
        pad = """  %%pad = arith.constant 0.0 : %(t)s
  %%xp = tensor.pad %%x low[%(low)s] high[%(low)s] {
  ^bb0(%(indices)s):
    tensor.yield %%pad : %(t)s
  } : %(x)s to %(xp)s
""" % dict(t=t, low=", ".join(low), x=x, xp=padded,
           indices=", ".join("%%i%d: index" % i for i in range(len(low))))
        source, x = "%xp", padded
    return """func.func @%(name)s(%%x: %(xa)s, %%f: %(f)s) -> %(y)s {
%(pad)s  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.%(op)s {dilations = dense<%(dil)s> : tensor<%(n)dxi64>, strides = dense<%(st)s> : tensor<%(n)dxi64>}
    ins(%(src)s, %%f : %(x)s, %(f)s) outs(%%init : %(y)s) -> %(y)s
  return %%r : %(y)s
}
""" % dict(name=name, xa=tensor(shapes[0], t), f=f, y=y, x=x, pad=pad,
           acc=acc, op=op, src=source, n=spatial,
           dil="[%s]" % ", ".join(map(str, dilations)),
           st="[%s]" % ", ".join(map(str, strides)))


def convolution_case(name, op, layouts, sizes, window, strides, dilations,
                     pads, t, acc, launches):
    """A named convolution whose operands are laid out as `layouts` (x,
    filter, y) spell them: n the batch, g groups, c input and f output
    channels, d/h/w the image's spatial dimensions in x and y and the
    window's in the filter. `sizes` gives n, c, f, g and the input's
    spatial sizes, `window` the filter's. The reference slides the window
    over the zero-padded input in double precision."""
    spatial = [l for l in layouts[0] if l in "dhw"]
    out = {l: (sizes[l] + 2 * p - d * (window[l] - 1) - 1) // s + 1
           for l, s, d, p in zip(spatial, strides, dilations, pads)}
    shapes = ([sizes[l] for l in layouts[0]],
              [window[l] if l in "dhw" else sizes[l] for l in layouts[1]],
              [out[l] if l in "dhw" else sizes[l] for l in layouts[2]])
    grouped = "g" in layouts[0]
    canonical_x = ("ng" if grouped else "n") + "".join(spatial) + "c"
    canonical_f = ("g" if grouped else "") + "".join(spatial) + "cf"
    canonical_y = ("ng" if grouped else "n") + "".join(spatial) + "f"

    def reference(x, layouts=layouts, shapes=shapes, spatial=spatial,
                  strides=strides, dilations=dilations, pads=pads, out=out,
                  window=window, canonical=(canonical_x, canonical_f,
                                            canonical_y)):
        def to_canonical(values, layout, shape, target):
            array = np.array(values, np.float64).reshape(shape)
            return np.transpose(array, [layout.index(l) for l in target])
        image = to_canonical(x[0], layouts[0], shapes[0], canonical[0])
        filt = to_canonical(x[1], layouts[1], shapes[1], canonical[1])
        first = image.ndim - len(spatial) - 1
        padding = [(0, 0)] * first + [(p, p) for p in pads] + [(0, 0)]
        image = np.pad(image, padding)
        result = 0.0
        for offsets in np.ndindex(*[window[l] for l in spatial]):
            index = [slice(None)] * first
            for o, l, s, d in zip(offsets, spatial, strides, dilations):
                index.append(slice(o * d, o * d + s * (out[l] - 1) + 1, s))
            patch = image[tuple(index)]
            weights = filt[(slice(None),) * (first - 1) + offsets]
            if first == 2:
                result = result + np.einsum("ng...c,gcf->ng...f", patch,
                                            weights)
            else:
                result = result + np.einsum("n...c,cf->n...f", patch, weights)
        order = [canonical[2].index(l) for l in layouts[2]]
        return np.transpose(result, order).reshape(-1).tolist()

    return Case(name, convolution_program(name, op, layouts, shapes, strides,
                                          dilations, pads, t, acc),
                [("x", tuple(shapes[0]), t, (-1.0, 1.0)),
                 ("f", tuple(shapes[1]), t, (-1.0, 1.0))],
                (tuple(shapes[2]), acc), reference, 1e-3, launches=launches)


def unit_convolution_program(name, op, x, f, y, acc):
    """A 2-D convolution `op` (unit strides and dilations) of tensors `x`
    and `f` into a zero-filled `y`."""
    return """func.func @%(name)s(%%x: %(x)s, %%f: %(f)s) -> %(y)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.%(op)s {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%%x, %%f : %(x)s, %(f)s) outs(%%init : %(y)s) -> %(y)s
  return %%r : %(y)s
}
""" % dict(name=name, op=op, x=x, f=f, y=y, acc=acc)


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
    cases = []
    # 1x1 convolutions: NHWC (a GEMM over N*H*W) and NCHW (per image).
    nb, h, w, ci, co = 2, 6, 10, 32, 48
    text = unit_convolution_program(
        "conv_nhwc", "conv_2d_nhwc_hwcf", tensor((nb, h, w, ci), t),
        tensor((1, 1, ci, co), t), tensor((nb, h, w, co), acc), acc)
    cases.append(Case("conv1x1_nhwc", text,
                      [("x", (nb, h, w, ci), t, unit),
                       ("f", (1, 1, ci, co), t, unit)],
                      ((nb, h, w, co), acc),
                      lambda x: matmul_reference(x[0], x[1], nb * h * w, co,
                                                 ci),
                      1e-3))
    text = unit_convolution_program(
        "conv_nchw", "conv_2d_nchw_fchw", tensor((nb, ci, h, w), t),
        tensor((co, ci, 1, 1), t), tensor((nb, co, h, w), acc), acc)
    # Per image, F x C (the filter, shared) by C x (H*W).
    cases.append(Case("conv1x1_nchw", text,
                      [("x", (nb, ci, h, w), t, unit),
                       ("f", (co, ci, 1, 1), t, unit)],
                      ((nb, co, h, w), acc),
                      lambda x: matmul_reference(x[1], x[0], co, h * w, ci,
                                                 batch=nb, a_batched=False),
                      1e-3))

    # Convolutions as implicit GEMMs: the window gathered as A is staged
    # (one launch), in every layout linalg names, strided, dilated, padded
    # by a tensor.pad, 1-D, 3-D and grouped.
    if t == "f16":
        hw = dict(h=9, w=11)
        for case in [
            ("conv3x3_nhwc_hwcf", "conv_2d_nhwc_hwcf", ("nhwc", "hwcf", "nhwf"),
             dict(n=2, c=32, f=40, **hw), dict(h=3, w=3), (1, 1), (1, 1),
             (0, 0), 1),
            ("conv3x3_strided_nhwc_fhwc", "conv_2d_nhwc_fhwc",
             ("nhwc", "fhwc", "nhwf"), dict(n=2, c=24, f=32, **hw),
             dict(h=3, w=3), (2, 2), (1, 1), (0, 0), 1),
            ("conv1x1_strided_nhwc", "conv_2d_nhwc_hwcf",
             ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=48, **hw),
             dict(h=1, w=1), (2, 2), (1, 1), (0, 0), 1),
            ("conv3x3_dilated_nchw", "conv_2d_nchw_fchw",
             ("nchw", "fchw", "nfhw"), dict(n=2, c=16, f=24, **hw),
             dict(h=3, w=3), (1, 1), (2, 2), (0, 0), 2),
            ("conv3x3_padded_nhwc", "conv_2d_nhwc_hwcf",
             ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=40, **hw),
             dict(h=3, w=3), (1, 1), (1, 1), (1, 1), 1),
            ("conv3x3_grouped_nhwgc", "conv_2d_nhwgc_gfhwc",
             ("nhwgc", "gfhwc", "nhwgf"), dict(n=2, g=2, c=16, f=24, **hw),
             dict(h=3, w=3), (1, 1), (1, 1), (1, 1), 2),
            ("conv1d_nwc", "conv_1d_nwc_wcf", ("nwc", "wcf", "nwf"),
             dict(n=3, c=32, f=24, w=40), dict(w=5), (1,), (1,), (0,), 1),
            ("conv3d_ndhwc", "conv_3d_ndhwc_dhwcf",
             ("ndhwc", "dhwcf", "ndhwf"), dict(n=1, c=16, f=32, d=5, h=6, w=7),
             dict(d=3, h=3, w=3), (1, 1, 1), (1, 1, 1), (0, 0, 0), 1),
        ]:
            cases.append(convolution_case(case[0], case[1], case[2], case[3],
                                          case[4], case[5], case[6], case[7],
                                          t, acc, case[8]))
        # A convolution an importer wrote as a generic: the window's stride
        # is in the input's map (n, oh, ow, f, kh, kw, c).
        case = convolution_case(
            "conv3x3_strided_generic", "conv_2d_nhwc_hwcf",
            ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=40, **hw),
            dict(h=3, w=3), (2, 2), (1, 1), (0, 0), t, acc, 1)
        x_type, f_type = (tensor(shape, t) for shape, in
                          [(case.inputs[0][1],), (case.inputs[1][1],)])
        y_type = tensor(case.output[0], acc)
        case.text = """func.func @conv3x3_strided_generic(%%x: %(x)s, %%f: %(f)s) -> %(y)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%%x, %%f : %(x)s, %(f)s) outs(%%init : %(y)s) {
  ^bb0(%%a: %(t)s, %%b: %(t)s, %%o: %(acc)s):
    %%a1 = arith.extf %%a : %(t)s to %(acc)s
    %%b1 = arith.extf %%b : %(t)s to %(acc)s
    %%p = arith.mulf %%a1, %%b1 : %(acc)s
    %%s = arith.addf %%o, %%p : %(acc)s
    linalg.yield %%s : %(acc)s
  } -> %(y)s
  return %%r : %(y)s
}
""" % dict(x=x_type, f=f_type, y=y_type, t=t, acc=acc)
        cases.append(case)
        # f16 written as f16, as a traced f16 model does: accumulated in
        # f32 and rounded once (the precision policy).
        cases.append(convolution_case(
            "conv3x3_padded_strided_f16_out", "conv_2d_nhwc_hwcf",
            ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=48, **hw),
            dict(h=3, w=3), (2, 2), (1, 1), (1, 1), t, "f16", 1))
    return cases
