"""Element types as the tests see them, in plain Python (the convert, map
and reduce suite runs where NumPy may be missing): rounding a double to
f16, bf16 or f32 as a device stores it, integer wrapping, and the bytes of
a buffer."""

import math
import struct

FLOATS = ("f16", "bf16", "f32")

# Component type -> (storage type, runner buffer type, bytes).
COMPONENTS = {
    "f16": ("f16", "f16", 2), "bf16": ("bf16", "bf16", 2),
    "f32": ("f32", "f32", 4), "si8": ("i8", "i8", 1), "ui8": ("i8", "u8", 1),
    "si32": ("i32", "i32", 4), "ui32": ("i32", "u32", 4),
}


def round_f16(x):
    try:
        return struct.unpack("<e", struct.pack("<e", float(x)))[0]
    except (OverflowError, struct.error):
        return math.copysign(math.inf, x)


def round_bf16(x):
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits += 0x7FFF + ((bits >> 16) & 1)
    return struct.unpack("<f", struct.pack("<I", (bits >> 16) << 16 & 0xFFFFFFFF))[0]


def round_f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", float(x)))[0]
    except (OverflowError, struct.error):
        return math.copysign(math.inf, x)


def toward_zero(x, component):
    """`x` rounded toward zero in a float component type: Vulkan lets a
    conversion round either so or to nearest even."""
    nearest = to_component(x, component)
    if math.isinf(nearest) or abs(nearest) <= abs(x):
        if math.isinf(nearest):
            largest = {"f16": 65504.0, "bf16": 3.3895313892515355e38,
                       "f32": 3.4028234663852886e38}[component]
            return math.copysign(largest, x)
        return nearest
    # One step toward zero: the encodings of one sign are ordered.
    if component == "f16":
        bits = struct.unpack("<H", struct.pack("<e", nearest))[0] - 1
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    bits = struct.unpack("<I", struct.pack("<f", nearest))[0]
    bits -= 1 << 16 if component == "bf16" else 1
    return struct.unpack("<f", struct.pack("<I", bits))[0]


class EitherRounding(float):
    """An expected float value where rounding to nearest even and toward
    zero are both correct."""

    def __new__(cls, x, component):
        value = super().__new__(cls, to_component(x, component))
        value.alternative = toward_zero(x, component)
        return value


def wrap(value, component):
    bits = 8 if "8" in component else 32
    value &= (1 << bits) - 1
    if component.startswith("si") and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def to_component(value, component):
    """Converts an exact value as convert (or storing) into `component` does."""
    if component == "f32":
        return round_f32(value)
    if component == "f16":
        return round_f16(value)
    if component == "bf16":
        return round_bf16(value)
    return wrap(int(value), component)


def pack(values, component):
    storage = COMPONENTS[component][0]
    if storage == "f16":
        return b"".join(struct.pack("<e", v) for v in values)
    if storage == "bf16":
        return b"".join(struct.pack("<I", struct.unpack(
            "<I", struct.pack("<f", v))[0])[2:] for v in values)
    if storage == "f32":
        return struct.pack("<%df" % len(values), *values)
    code = {"i8": "b", "i32": "i"}[storage]
    if component.startswith("ui"):
        code = code.upper()
    return struct.pack("<%d%s" % (len(values), code), *values)


def unpack(data, component):
    storage = COMPONENTS[component][0]
    if storage == "f16":
        return [v[0] for v in struct.iter_unpack("<e", data)]
    if storage == "bf16":
        return [struct.unpack("<f", b"\0\0" + data[i:i + 2])[0]
                for i in range(0, len(data), 2)]
    if storage == "f32":
        return [v[0] for v in struct.iter_unpack("<f", data)]
    code = {"i8": "b", "i32": "i"}[storage]
    if component.startswith("ui"):
        code = code.upper()
    return [v[0] for v in struct.iter_unpack("<" + code, data)]


def draw(distribution, component, rng):
    low, high = distribution
    if component in ("f16", "bf16", "f32"):
        return to_component(rng.uniform(low, high), component)
    return to_component(rng.randint(int(low), int(high)), component)


def round_to(value, storage):
    """`value` rounded to a float storage type; integers stay as they are."""
    return to_component(value, storage) if storage in FLOATS else value
