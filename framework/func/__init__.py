"""torch.func: composable function transforms (vmap, grad, vjp, jacrev, functional_call)."""
from .vmap import vmap  # noqa: F401
from .eager import grad, grad_and_value, jacrev, vjp  # noqa: F401
from .functional_call import functional_call, stack_module_state  # noqa: F401
from .forward import hessian, jacfwd, jvp, linearize  # noqa: F401
