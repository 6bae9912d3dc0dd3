"""The golden loss-curve plugin (framework.testing.golden) through pytest's pytester: a first run
records the curve, a matching run passes, a changed run fails with a diff and a PNG, and
--update-golden rewrites the file."""
import json

import pytest

pytest_plugins = ["pytester"]

TEST = """
import framework

SCALE = {scale}

def test_train(loss_curve):
    framework.manual_seed(0)
    w = framework.zeros(3, requires_grad=True)
    x, y = framework.randn(16, 3), framework.randn(16)
    opt = framework.optim.SGD([w], lr=0.1)
    for step in range(10):
        opt.zero_grad()
        loss = ((x @ w - y) ** 2).mean() * SCALE
        loss.backward()
        opt.step()
        loss_curve.log(step, loss=loss, w0=w[0])
    loss_curve.check(rtol=1e-5)
"""


@pytest.fixture
def run(pytester, monkeypatch):
    """Run the generated test file with the plugin loaded explicitly (entry points off, so the
    result does not depend on how framework was installed)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

    def go(scale, *args):
        pytester.makepyfile(test_curve=TEST.format(scale=scale))
        return pytester.runpytest("-p", "framework.testing.golden", *args)
    return go


def _golden(pytester):
    return pytester.path / "test_curve.test_train.golden.json"


def test_first_run_records_then_passes(run, pytester):
    run(1.0).assert_outcomes(passed=1)
    stored = json.loads(_golden(pytester).read_text())
    assert stored["steps"] == list(range(10)) and set(stored["metrics"]) == {"loss", "w0"}
    assert stored["metrics"]["loss"][-1] < stored["metrics"]["loss"][0]
    run(1.0).assert_outcomes(passed=1)
    assert json.loads(_golden(pytester).read_text()) == stored


def test_leaving_the_band_fails_with_a_diff_and_a_plot(run, pytester):
    run(1.0).assert_outcomes(passed=1)
    result = run(1.001)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "loss curve left the golden band" in out and "rtol=1e-05" in out
    assert "loss: 10 of 10 steps outside the band, first at step 0" in out
    assert "golden" in out and "this run" in out and "allowed" in out
    assert "--update-golden" in out
    png = pytester.path / "test_curve.test_train.golden.diff.png"
    assert png.exists() and png.read_bytes()[:4] == b"\x89PNG"


def test_update_flag_rewrites_the_file(run, pytester):
    run(1.0).assert_outcomes(passed=1)
    before = json.loads(_golden(pytester).read_text())["metrics"]["loss"]
    run(2.0, "--update-golden").assert_outcomes(passed=1)
    after = json.loads(_golden(pytester).read_text())["metrics"]["loss"]
    assert after[0] == pytest.approx(2 * before[0])
    run(2.0).assert_outcomes(passed=1)
