import pytest

from helpers import compare_with_torch, randn


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (5,))])
def test_mul(shapes, device):
    compare_with_torch(lambda a, b: a * b, lambda a, b: a * b, [randn(*s) for s in shapes],
                       device=device)
