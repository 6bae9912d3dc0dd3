"""The report compare_with_torch returns: both curves, where they part, and why."""
from dataclasses import dataclass, field

import numpy as np

ROUND_OFF_TOL = 1e-9  # float64 curves closer than this (relative) mean float32 drift is round-off


@dataclass
class StepDiff:
    """Where the two runs differ at one step.

    Attributes:
        step (int): the training step (0-based).
        first_module (str or None): the first module, in call order, whose forward output left
            the tolerance (None when every module output agreed: look at the gradients).
        first_param, first_grad (str or None): the first ``state_dict`` key (in its order)
            whose value after the step / gradient of the step left the tolerance.
        param_diffs, grad_diffs (dict): ``state_dict`` key -> largest absolute difference.
    """
    step: int
    first_module: object
    first_param: object
    first_grad: object
    param_diffs: dict = field(repr=False)
    grad_diffs: dict = field(repr=False)


@dataclass
class ComparisonReport:
    """The result of :func:`compare_with_torch`.

    Attributes:
        torch_losses, framework_losses (list of float): the two loss curves.
        rtol, atol (float): the per-step tolerance used.
        dtype (str): the dtype of the runs.
        divergence (StepDiff or None): details of the step where the loss curves part.
        first_difference (StepDiff or None): the earliest step where a module output or a
            parameter differs beyond tolerance (may come before, or without, ``divergence``).
        float64 (ComparisonReport or None): the float64 rerun, when requested.
    """
    torch_losses: list
    framework_losses: list
    rtol: float
    atol: float
    dtype: str
    divergence: object = None
    first_difference: object = None
    float64: object = None

    @property
    def differences(self):
        """Per-step absolute difference ``|framework - torch|`` (a NumPy array)."""
        return np.abs(np.subtract(self.framework_losses, self.torch_losses))

    @property
    def max_difference(self):
        """The largest per-step absolute difference."""
        return float(self.differences.max(initial=0.0))

    @property
    def first_divergence(self):
        """The first step whose losses part beyond tolerance, or None."""
        return None if self.divergence is None else self.divergence.step

    @property
    def verdict(self):
        """'agree'; 'round-off' (float32 curves part, float64 ones agree to ~1e-10); 'real
        divergence' (the float64 curves part: checked even when the float32 ones stay within
        tolerance, since float64 sees a small error float32 round-off hides); or 'diverged'
        (float32 curves part and no float64 rerun was asked for)."""
        if self.dtype == "float64":
            return "agree" if self.divergence is None else "real divergence"
        if self.float64 is not None:
            f = self.float64
            rel = f.differences / np.maximum(1.0, np.abs(f.torch_losses))
            if float(rel.max(initial=0.0)) > ROUND_OFF_TOL:
                return "real divergence"
            return "agree" if self.divergence is None else "round-off"
        return "agree" if self.divergence is None else "diverged"

    def assert_agree(self):
        """Raise AssertionError with this report unless the curves agree (or only round-off)."""
        if self.verdict not in ("agree", "round-off"):
            raise AssertionError(str(self))

    def __str__(self):
        n = len(self.torch_losses)
        lines = [f"compare_with_torch: {n} steps in {self.dtype}, tolerance rtol={self.rtol:g} "
                 f"atol={self.atol:g}: {self.verdict}",
                 f"  final loss torch {self.torch_losses[-1]:.8g}, framework "
                 f"{self.framework_losses[-1]:.8g}" if n else "  no steps",
                 f"  largest per-step difference {self.max_difference:.3e}"]
        d = self.divergence
        if d is not None:
            lines.append(f"  first diverging step {d.step}: torch {self.torch_losses[d.step]:.10g}"
                         f", framework {self.framework_losses[d.step]:.10g}")
            lines.append(f"  first module whose output differs: {d.first_module or '(none)'}")
            lines.append(f"  first parameter that differs: {d.first_param or '(none)'}; first "
                         f"gradient: {d.first_grad or '(none)'}")
            worst = sorted(d.grad_diffs.items(), key=lambda kv: -kv[1])[:3]
            if worst:
                lines.append("  largest gradient differences: " +
                             ", ".join(f"{k} {v:.2e}" for k, v in worst))
        e = self.first_difference
        if e is not None:
            lines.append(f"  earliest difference inside: step {e.step}, module "
                         f"{e.first_module or '(none)'}, parameter {e.first_param or '(none)'}")
        if self.float64 is not None:
            f = self.float64
            lines.append(f"  float64 rerun: largest per-step difference {f.max_difference:.3e}"
                         + ("" if f.divergence is None else
                            f", parts at step {f.divergence.step} "
                            f"(module {f.divergence.first_module or '(none)'})"))
        return "\n".join(lines)
