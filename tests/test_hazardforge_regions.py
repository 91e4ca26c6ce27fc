"""Regions Omega_L/C/R (paper 3.1) against the paper's inequalities, and the origin conversion."""

from fractions import Fraction

import numpy as np
import pytest

from builder.movsafebench.hazardforge.regions import (
    REGIONS,
    image_to_paper,
    paper_to_image,
    region_columns,
    region_mask,
    region_of_column,
)


def test_regions_on_1600_wide_image_by_hand():
    # W/3 = 533.33 -> columns 0..533 are left; 2W/3 = 1066.67 -> 534..1066 centre; 1067..1599 right
    assert region_columns(1600, "L") == (0, 534)
    assert region_columns(1600, "C") == (534, 1067)
    assert region_columns(1600, "R") == (1067, 1600)


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5, 7, 640, 1599, 1600, 1601])
def test_region_columns_match_paper_inequalities(width):
    for k, region in enumerate(REGIONS):
        lo, hi = Fraction(k * width, 3), Fraction((k + 1) * width, 3)
        expected = [x for x in range(width) if lo <= x < hi]
        x0, x1 = region_columns(width, region)
        assert list(range(x0, x1)) == expected
        assert all(region_of_column(width, x) == region for x in expected)


def test_regions_partition_the_image():
    masks = [region_mask(9, 1600, r) for r in REGIONS]
    total = np.sum(masks, axis=0)
    assert total.shape == (9, 1600) and (total == 1).all()


def test_origin_conversion_is_explicit_and_invertible():
    h = 900
    assert paper_to_image(10, 0, h) == (10, 899)  # paper bottom row is the last image row
    assert paper_to_image(10, 899, h) == (10, 0)
    for x, y in [(0, 0), (123.5, 456.25), (1599, 899)]:
        assert image_to_paper(*paper_to_image(x, y, h), h) == (x, y)


def test_bad_region_arguments():
    with pytest.raises(ValueError):
        region_columns(0, "L")
    with pytest.raises(ValueError):
        region_columns(100, "X")
