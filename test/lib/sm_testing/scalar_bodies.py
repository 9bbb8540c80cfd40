"""Bodies of scalar arithmetic that the suites' programs share (an
epilogue's, a subgroup_matrix.map's), in plain Python for the suites that
run without NumPy."""

# GELU with erf, scalar f32 arithmetic from %x to %y (an epilogue's body,
# a subgroup_matrix.map's).
GELU_ERF = """
%s = arith.constant 0.7071067811865476 : f32
%xs = arith.mulf %x, %s : f32
%er = math.erf %xs : f32
%one = arith.constant 1.0 : f32
%t = arith.addf %er, %one : f32
%h = arith.constant 0.5 : f32
%hx = arith.mulf %x, %h : f32
%y = arith.mulf %hx, %t : f32"""
