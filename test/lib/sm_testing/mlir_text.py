"""Pieces of MLIR text that the suites' program writers share."""


def generic_lines(result, maps, iterators, inputs, output, arguments, body,
                  indent="  "):
    """The lines of `result` = a linalg.generic on tensors of `inputs`
    ((value, type) pairs) into `output` (value, type), with indexing
    `maps`, `iterators` ("parallel", ...), block `arguments` ("%x: f32",
    ...) and `body` (the lines of the block, its yield last)."""
    return [
        "%s%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} "
        "ins(%s : %s) outs(%s : %s) {" % (
            indent, result, ", ".join(maps),
            ", ".join('"%s"' % i for i in iterators),
            ", ".join(v for v, _ in inputs), ", ".join(t for _, t in inputs),
            output[0], output[1]),
        "%s^bb0(%s):" % (indent, ", ".join(arguments))] + [
        indent + "  " + line for line in body] + [
        "%s} -> %s" % (indent, output[1])]
