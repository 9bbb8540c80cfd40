"""Arrays of each storage type as the tests hand them to sm-run and read
them back (NumPy; bf16 travels as its bits in uint16), over the element
types of sm_testing.elements."""

import numpy as np

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
