"""A custom autograd.Function with a hand-written backward that is itself differentiable
(PyTorch's double-backward tutorial: Cube and CubeBackward), checked with gradcheck.

    python examples/custom_function.py
"""
from common import framework


class Cube(framework.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)


class CubeBackward(framework.autograd.Function):
    """The backward of Cube as its own Function, so second derivatives work too."""

    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return grad_out * 3 * x ** 2

    @staticmethod
    def backward(ctx, grad_out):
        x, saved_grad_out = ctx.saved_tensors
        return grad_out * 3 * x ** 2, grad_out * saved_grad_out * 6 * x


if __name__ == "__main__":
    x = framework.tensor(2.0, requires_grad=True, dtype=framework.float64)
    out = Cube.apply(x)
    grad_x, = framework.autograd.grad(out, x, create_graph=True)
    grad2_x, = framework.autograd.grad(grad_x, x)
    print(f"out = {out}\nd/dx = {grad_x}\nd2/dx2 = {grad2_x.item()}")
    print("gradcheck:", framework.autograd.gradcheck(Cube.apply, x))
    print("gradgradcheck:", framework.autograd.gradgradcheck(Cube.apply, x))
