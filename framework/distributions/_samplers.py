"""ATen's CPU samplers that torch.distributions calls: torch._standard_gamma (with its
reparameterised gradient) and torch._sample_dirichlet, drawn from framework's generator
exactly as torch draws them from its own.

Both run ATen's ``sample_gamma`` (Marsaglia and Tsang's rejection method, boosted for
concentrations below 1) one element after another in memory order, taking 53-bit uniforms and
``at::normal_distribution<double>`` normals (Box-Muller with the left-over kept in the
generator) from the stream, so the number of draws depends on the values. float32 keeps
torch's float arithmetic where ATen's code does it in ``scalar_t``.
"""

import math

import numpy as np

from framework import backend
from framework.autograd.op import Op
from framework.random import _generator_for
from framework.tensor import Tensor

_F32 = np.float32
_THIRD_F = float(_F32(1.0) / _F32(3.0))  # ATen's 1.0f / 3.0f
_C0331_F = float(_F32(0.0331))  # ATen's 0.0331f


def _uniform(gen):
    """at::uniform_real_distribution<double>(0, 1): 53 random bits."""
    return float(int(gen._random64(1)[0]) & (2**53 - 1)) * 2.0**-53


def _normal(gen):
    """at::normal_distribution<double>(0, 1): a kept left-over first, else a Box-Muller pair
    whose sine half is kept in the generator."""
    if gen._next_double is not None:
        x, gen._next_double = gen._next_double, None
        return x
    u1, u2 = _uniform(gen), _uniform(gen)
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen._next_double = r * math.sin(theta)
    return r * math.cos(theta)


def _sample_gamma(alpha, gen, single):
    """ATen's sample_gamma for one concentration; ``single``: scalar_t is float32 (alpha's
    boost and ``d`` are then computed in float)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(_F32(1.0) / _F32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1.0 - _uniform(gen), inv)
        alpha = float(_F32(alpha) + _F32(1.0)) if single else alpha + 1.0
    d = float(_F32(alpha) - _F32(_THIRD_F)) if single else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _normal(gen)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - _uniform(gen)
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _gammas(alphas, gen, single):
    return np.array([_sample_gamma(float(a), gen, single) for a in alphas.ravel()])


def standard_gamma_array(alpha, gen):
    """torch._standard_gamma on an array: one draw per element, at least the dtype's tiny."""
    single = alpha.dtype == np.float32
    out = _gammas(np.ascontiguousarray(alpha), gen, single).astype(alpha.dtype)
    return np.maximum(out, np.finfo(alpha.dtype).tiny).reshape(alpha.shape)


def sample_dirichlet_array(alpha, gen):
    """torch._sample_dirichlet: double gammas (at least double's tiny) normalised over the
    last dimension, then clamped to [tiny, 1) in alpha's dtype."""
    g = np.maximum(_gammas(np.ascontiguousarray(alpha), gen, False), np.finfo(np.float64).tiny)
    g = g.reshape(alpha.shape)
    total = Tensor._make(g, backend.CPU).sum(-1, keepdim=True)._data  # torch's summation order
    out = (g / total).astype(alpha.dtype)
    hi = np.nextafter(alpha.dtype.type(1.0), alpha.dtype.type(0.0))
    return np.minimum(hi, np.maximum(np.finfo(alpha.dtype).tiny, out))


def _digamma_one(x):
    """ATen's digamma_one in double (asymptotic series after pushing x to 10 or more)."""
    if x == 0:
        return math.inf
    extra = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        extra = -math.pi / math.tan(math.pi * x)
        x = 1 - x
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + 2.25175258906672110764 + extra
    from framework.ops._gamma_exact import DIGAMMA_ASYMPTOTIC as coef

    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        p = 0.0
        for a in coef:
            p = p * z + a
        y = z * p
    return result + math.log(x) - (0.5 / x) - y + extra


_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
     -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
     0.00085092367, -1.5247877e-07),
)  # fmt: skip
_F08, _F09, _F11 = float(_F32(0.8)), float(_F32(0.9)), float(_F32(1.1))


def _gamma_grad_one(alpha, x):
    """ATen's standard_gamma_grad_one in double: -(d/dalpha CDF(x; alpha)) / pdf(x; alpha),
    by a Taylor series (x < 0.8), a saddle-point expansion (alpha > 8) or a rational fit."""
    if x < _F08:
        numer, denom = 1.0, alpha
        s1, s2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            s1 += numer / denom
            s2 += numer / (denom * denom)
        pow_x_alpha = math.pow(x, alpha)
        pdf = math.pow(x, alpha - 1) * math.exp(-x)
        cdf_alpha = (math.log(x) - _digamma_one(alpha)) * (pow_x_alpha * s1) - pow_x_alpha * s2
        r = -cdf_alpha / pdf
        return 0.0 if math.isnan(r) else r
    if alpha > 8.0:
        if _F09 * alpha <= x <= _F11 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (
                1440 * (alpha * alpha)
                + 6 * x * (53 - 120 * x)
                - 65 * x * x / alpha
                + alpha * (107 + 3600 * x)
            )
            return numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = math.pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = math.log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / (
            (alpha - x) * (alpha - x)
        )
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u, v = math.log(x / alpha), math.log(alpha)
    cv = [_UV[0][i] + u * (_UV[1][i] + u * _UV[2][i]) for i in range(8)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    return math.exp(p / q)


def standard_gamma_grad_array(alpha, x):
    """torch._standard_gamma_grad: d(sample)/d(alpha) of standard gamma draws x."""
    out = [_gamma_grad_one(float(a), float(s)) for a, s in zip(alpha.ravel(), x.ravel())]
    return np.array(out).astype(alpha.dtype).reshape(alpha.shape)


class StandardGamma(Op):
    """torch._standard_gamma: one Gamma(alpha, 1) draw per element; its gradient is the
    implicit reparameterisation ``grad * _standard_gamma_grad(alpha, sample)``."""

    node_name = "StandardGammaBackward0"
    saves_inputs = True
    saves_output = True

    def forward(self, alpha):
        dev = backend.device_of(alpha)
        out = standard_gamma_array(backend.to_numpy(alpha), _generator_for(None, dev))
        return backend.move(out, dev)

    def backward(self, grad):
        (alpha,) = self.inputs
        x = backend.to_numpy(self.output._data)
        g = standard_gamma_grad_array(backend.to_numpy(alpha._data), x)
        return grad * Tensor._make(backend.move(g, alpha.device), alpha.device)


def standard_gamma(concentration):
    """torch._standard_gamma(concentration): Gamma(concentration, 1) draws, differentiable
    with respect to concentration (the implicit reparameterisation gradient)."""
    return StandardGamma.apply(concentration)


def sample_dirichlet(concentration):
    """torch._sample_dirichlet(concentration): Dirichlet draws over the last dimension."""
    gen = _generator_for(None, concentration.device)
    out = sample_dirichlet_array(backend.to_numpy(concentration._data), gen)
    return Tensor._make(backend.move(out, concentration.device), concentration.device)


def _beta_grad_alpha_small(x, alpha, beta):
    """d(Beta sample)/d(alpha) for x near 0: a Taylor series (ATen's _beta_grad_alpha_small)."""
    factor = _digamma_one(alpha) - _digamma_one(alpha + beta) - math.log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    r = x * math.pow(1 - x, -beta) * series
    return 0.0 if math.isnan(r) else r


def _beta_grad_beta_small(x, alpha, beta):
    """d(Beta sample)/d(beta) for x near 0 (ATen's _beta_grad_beta_small)."""
    factor = _digamma_one(alpha + beta) - _digamma_one(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    r = -math.pow(1 - x, 1 - beta) * series
    return 0.0 if math.isnan(r) else r


def _beta_grad_alpha_mid(x, alpha, beta):
    """d(Beta sample)/d(alpha) for large alpha and beta: a saddle-point expansion."""
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # avoid the singularity at x = mean
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta
            + alpha
            * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta)
                + alpha
                * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta
                    + alpha * (8 * (1 - x) * (135 * beta - 11))
                )
            )
        )
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = (
        (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
        * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
        / (1 + 1 / (12 * total) + 1 / (288 * total * total))
    )
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * math.pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * math.log(beta / (total * (1 - x))) + alpha * math.log(alpha / (total * x))
    term4 = math.pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIRICHLET_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]],
]).tolist()  # fmt: skip


def _dirichlet_grad_one(x, alpha, total):
    """ATen's dirichlet_grad_one in double: -(d/dalpha CDF(x; alpha, total - alpha)) / pdf / (1-x)
    for a Beta draw x, by the asymptotic forms near 0, near 1 and for large parameters, else
    a rational correction to an analytic approximation."""
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(1 - x, beta, alpha)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, beta)
    c = _DIRICHLET_C
    u = math.log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    pow_u, pow_a = (1.0, u, u * u), (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            k0, k1 = c[0][i][j], c[1][i][j]
            p += ua * (k0[0] + b * (k0[1] + b * (k0[2] + b * k0[3])))
            q += ua * (k1[0] + b * (k1[1] + b * (k1[2] + b * k1[3])))
    approx = x * (_digamma_one(total) - _digamma_one(alpha)) / beta
    return p / q * approx


def dirichlet_grad(x, concentration, total):
    """torch._dirichlet_grad(x, concentration, total), elementwise; computed in double (for
    float32 torch keeps some steps in float: equal to float32 rounding, not bit for bit)."""
    xs, al, tot = (backend.to_numpy(t._data) for t in (x, concentration, total))
    xs, al, tot = np.broadcast_arrays(xs, al, tot)
    out = [
        _dirichlet_grad_one(float(a), float(b), float(c))
        for a, b, c in zip(xs.ravel(), al.ravel(), tot.ravel())
    ]
    out = np.array(out).astype(xs.dtype).reshape(xs.shape)
    return Tensor._make(backend.move(out, x.device), x.device)
