#!/usr/bin/python3
"""Writes the seed corpus of fuzz/npy_fuzz.cpp: tests/fuzz/corpus/npy/*.npy (committed; rerun after changing this).

Valid files, written by numpy itself (numpy.lib.format.write_array): float16/float32/float64, little and big endian,
C and Fortran order, versions 1.0/2.0/3.0, ranks 0-3, an empty shape (0, 8, 4), the edge values favorlab must keep
bit for bit (-0.0, subnormals, float32's largest) and a float64 beyond float32's range (npy_to_heads<float> refuses it).
Hand-written headers numpy also reads (double quotes, keys in another order, no trailing comma, '=f8', Python 2's 3L).
A zero dimension beside huge ones (favorlab reads 0 values; numpy 1.24 refuses "array is too big").
Broken files, each one problem: bad magic, unsupported version, truncated header, lying header length, a shape that
promises far more data than the file holds, a shape whose byte count overflows, truncated data, trailing bytes, NaN,
float16's infinity, a 2-byte void (how ml_dtypes' bfloat16 is saved), an integer dtype, a structured dtype, a malformed
dict.

Usage: python3 tests/fuzz/make_npy_corpus.py [OUT_DIR]   (default: tests/fuzz/corpus/npy next to this script)
"""
import io
import os
import struct
import sys

import numpy as np


def npy(array, version=(1, 0)):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, version=version, allow_pickle=False)
    return buf.getvalue()


def raw(header, data=b"", version=(1, 0), pad=True):
    """A .npy from a header dict written by hand (padded to 64 bytes like numpy when pad is set)."""
    major, minor = version
    preamble = 10 if major == 1 else 12
    text = header.encode("latin1" if major < 3 else "utf8")
    if pad:
        total = preamble + len(text) + 1
        text += b" " * ((64 - total % 64) % 64) + b"\n"
    length = struct.pack("<H", len(text)) if major == 1 else struct.pack("<I", len(text))
    return b"\x93NUMPY" + bytes([major, minor]) + length + text + data


def values(n, dtype):
    v = (np.arange(n, dtype=np.float64) * 0.75 - 1.5).astype(dtype)
    return v


def corpus():
    files = {}
    # Valid, written by numpy.
    files["f8_le_2d_v1.npy"] = npy(values(12, "<f8").reshape(3, 4))
    files["f4_le_2d_v1.npy"] = npy(values(12, "<f4").reshape(4, 3))
    files["f8_be_2d_v1.npy"] = npy(values(6, ">f8").reshape(2, 3))
    files["f4_be_3d_v1.npy"] = npy(values(24, ">f4").reshape(2, 3, 4))
    files["f8_fortran_2d_v1.npy"] = npy(np.asfortranarray(values(15, "<f8").reshape(3, 5)))
    files["f4_be_fortran_3d_v1.npy"] = npy(np.asfortranarray(values(24, ">f4").reshape(2, 3, 4)))
    files["f8_le_2d_v2.npy"] = npy(values(4, "<f8").reshape(2, 2), version=(2, 0))
    files["f4_le_1d_v3.npy"] = npy(values(5, "<f4"), version=(3, 0))
    files["f8_rank0_v1.npy"] = npy(np.array(2.5, dtype="<f8"))
    files["f4_rank1_v1.npy"] = npy(values(5, "<f4"))
    files["f8_empty_0_8_4_v1.npy"] = npy(np.zeros((0, 8, 4), dtype="<f8"))
    edge = np.array([-0.0, 5e-324, 2.2250738585072014e-308, float(np.finfo(np.float32).max), -1e-45, 1.0],
                    dtype="<f8").reshape(1, 2, 3)
    files["f8_edge_values_3d_v1.npy"] = npy(edge)
    files["f4_edge_values_2d_v1.npy"] = npy(np.array([[-0.0, 1e-45], [3.4028235e38, -1.17549435e-38]], dtype="<f4"))
    files["f2_le_2d_v1.npy"] = npy(values(12, "<f2").reshape(3, 4))
    files["f2_be_fortran_3d_v1.npy"] = npy(np.asfortranarray(values(24, ">f2").reshape(2, 3, 4)))
    files["f2_edge_values_2d_v1.npy"] = npy(np.array([[-0.0, 6e-8], [65504.0, -6.1035e-05]], dtype="<f2"))
    files["f8_beyond_float32_2d_v1.npy"] = npy(np.array([[1.0, 1e300], [-2.0, 3.0]], dtype="<f8"))
    # Valid, hand-written headers (numpy reads every one of them).
    two = values(2, "<f8").tobytes()
    files["hand_double_quotes.npy"] = raw('{"descr": "<f8", "fortran_order": False, "shape": (1, 2)}', two)
    files["hand_key_order_native.npy"] = raw("{'shape': (2, 1), 'fortran_order': True, 'descr': '=f8',}", two)
    files["hand_python2_long.npy"] = raw("{'descr': '|f4', 'fortran_order': False, 'shape': (2L, 1L), }",
                                         values(2, "<f4").tobytes())
    files["hand_unpadded.npy"] = raw("{'descr':'<f8','fortran_order':False,'shape':(2,)}\n", two, pad=False)
    # Broken: one problem each.
    good = files["f8_le_2d_v1.npy"]
    files["bad_magic.npy"] = b"\x93NUMPZ" + good[6:]
    files["bad_version_4_0.npy"] = good[:6] + b"\x04\x00" + good[8:]
    files["bad_truncated_header.npy"] = good[:40]
    files["bad_header_length_lies_v2.npy"] = b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + good[10:80]
    files["bad_lying_shape.npy"] = raw("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }",
                                       two)
    files["bad_shape_overflows.npy"] = raw(
        "{'descr': '<f4', 'fortran_order': True, 'shape': (9223372036854775807, 3, 5), }", two)
    files["edge_zero_dim_huge_others.npy"] = raw(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000, 0, 4000000000000), }")
    files["bad_truncated_data.npy"] = good[:-3]
    files["bad_trailing_bytes.npy"] = good + b"\x00\x00\x00\x00\x00\x00\x00\x00"
    files["bad_nan.npy"] = npy(np.array([[1.0, np.nan], [np.inf, 2.0]], dtype="<f8"))
    files["bad_f2_inf.npy"] = npy(np.array([1.0, np.inf, -2.0], dtype="<f2"))
    files["bad_bfloat16_as_void.npy"] = raw("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }",
                                            b"\x80\x3f" * 2)
    files["bad_int_dtype.npy"] = npy(np.arange(6, dtype="<i4").reshape(2, 3))
    files["bad_structured_dtype.npy"] = raw("{'descr': [('a', '<f8'), ('b', '<f4')], 'fortran_order': False, "
                                            "'shape': (1,), }", b"\x00" * 12)
    files["bad_malformed_dict.npy"] = raw("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", two)
    files["bad_not_a_tuple.npy"] = raw("{'descr': '<f8', 'fortran_order': False, 'shape': (2), }", two)
    return files


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "npy")
    os.makedirs(out, exist_ok=True)
    total = 0
    for name, data in sorted(corpus().items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        total += len(data)
    print(f"{len(corpus())} files, {total} bytes in {out}")


if __name__ == "__main__":
    main()
