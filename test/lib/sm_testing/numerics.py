"""Element types as the tests see them: rounding a double to f16, bf16 or
f32 as a device stores it, integer wrapping, the bytes of a buffer, and
NumPy arrays of each storage type (bf16 travels as its bits in uint16)."""

import math
import struct

import numpy as np

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


# NumPy's type for each storage; bf16 travels as its bits.
NUMPY_TYPE = {"f16": "float16", "f32": "float32", "bf16": "uint16",
              "si8": "int8", "ui8": "uint8", "si32": "int32",
              "ui32": "uint32"}
STORAGE_OF_NUMPY = {value: key for key, value in NUMPY_TYPE.items()}


def to_array(values, shape, storage):
    """The flat `values` (already representable in `storage`) as an array
    of `shape`."""
    if storage == "bf16":
        bits = np.array(values, np.float32).view(np.uint32) >> 16
        return bits.astype(np.uint16).reshape(shape)
    return np.array(values, NUMPY_TYPE[storage]).reshape(shape)


def from_array(array):
    """(flat list of Python numbers, storage) of an array."""
    storage = STORAGE_OF_NUMPY[array.dtype.name]
    if storage == "bf16":
        array = (array.astype(np.uint32) << 16).view(np.float32)
    return array.reshape(-1).tolist(), storage


def bf16_to_float64(bits):
    """The values of bf16 bits (uint16, any shape) as float64."""
    # (Flat while reinterpreted: a shifted 0-d array is a scalar.)
    bits = np.asarray(bits, np.uint16)
    wide = bits.reshape(-1).astype(np.uint32) << np.uint32(16)
    return wide.view(np.float32).astype(np.float64).reshape(bits.shape)


def bf16_bits(values):
    """`values` rounded to bf16 (nearest, ties to even; NaN stays NaN), as
    the uint16 bits sm-run reads bf16 arrays as."""
    values = np.asarray(values, np.float32)
    # (Flat: numpy makes a 0-d array's arithmetic scalar, and a uint64
    # scalar shifted by a Python int becomes a float.)
    flat = values.reshape(-1)
    bits = flat.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(flat), 0x7FC0,
                    rounded).astype(np.uint16).reshape(values.shape)
