"""The procedural scenes' jitter (data._halton, made float32 by torch.tensor) is the float nearest
the exact radical inverse, the same value as the C++ definition (src/frame/halton_jitter.h, checked
the same way by tests/frame/test_halton.cpp): the reference here rounds the exact fraction to
float32 with integers alone."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup.data import _halton  # noqa: E402


def radical_inverse_fraction(index: int, base: int):
    """The radical inverse of `index` in `base` as (numerator, denominator)."""
    numerator, denominator = 0, 1
    while index > 0:
        numerator, denominator, index = numerator * base + index % base, denominator * base, index // base
    return numerator, denominator


def nearest_float32(numerator: int, denominator: int) -> float:
    """The float32 nearest numerator / denominator (0 <= it < 1), ties to even, in integers: the
    24-bit significand q and the exponent with q * 2^-shift the truncated quotient, then the rest
    decides the rounding. q * 2^-shift is exact in a Python float."""
    if numerator == 0:
        return 0.0
    shift = 0
    while (numerator << shift) < (denominator << 23):
        shift += 1
    q, rest = divmod(numerator << shift, denominator)
    if 2 * rest > denominator or (2 * rest == denominator and q & 1):
        q += 1
    return q * 2.0 ** -shift


def as_float32(values):
    return torch.tensor(values, dtype=torch.float32).tolist()


class Halton(unittest.TestCase):
    def test_reference_rounds_known_fractions(self):
        self.assertEqual(nearest_float32(1, 2), 0.5)
        self.assertEqual(nearest_float32(1, 3), as_float32([1 / 3])[0])
        # Ties to even: 0.5 + 2^-25 is halfway between 0.5 and the next float32 up.
        self.assertEqual(nearest_float32(2**24 + 1, 2**25), 0.5)
        self.assertEqual(nearest_float32(2**24 + 3, 2**25), 0.5 + 2.0**-23)

    def test_data_halton_is_the_nearest_float32(self):
        for base in (2, 3):
            indices = range(4096)
            got = as_float32([_halton(i, base) for i in indices])
            for i, value in zip(indices, got):
                self.assertEqual(value, nearest_float32(*radical_inverse_fraction(i, base)),
                                 f"base {base}, index {i}")


if __name__ == "__main__":
    unittest.main()
