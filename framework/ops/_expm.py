"""torch's matrix exponential algorithm (aten LinearAlgebra.cpp `mexp`), step by step.

Bader, Blanes and Casas' optimized Taylor polynomials of degree 1, 2, 4, 8, 12 and 18 in the
input's own precision (float32 in float32): a single matrix takes the lowest degree whose
threshold its 1-norm is under, a batch of several always takes degree 18; degree 18 scales
by 2^-s (s from the norm) and squares s times. The products of matrices up to 8 x 8 are
summed as torch's CPU kernels sum them (k in order, no fused multiply-add), so the float32
rounding, which s squarings magnify (the gradient's block matrix [[A^T, G], [0, A^T]] has
the norm of G), is torch's.
"""

import math

# thresholds of the 1-norm for degrees 1, 2, 4, 8, 12, 18
_THETAS = {
    4: (
        1.192092800768788e-07,
        5.978858893805233e-04,
        5.116619363445086e-02,
        5.800524627688768e-01,
        1.461661507209034e00,
        3.010066362817634e00,
    ),
    8: (
        2.220446049250313e-16,
        2.580956802971767e-08,
        3.397168839976962e-04,
        4.991228871115323e-02,
        2.996158913811580e-01,
        1.090863719290036e00,
    ),
}
_B12 = (
    (9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
    (
        5.31597895759871264183,
        1.19926790417132231573,
        0.01179296240992997031,
        0.01108844528519167989,
    ),
    (
        0.18188869982170434744,
        0.05502798439925399070,
        0.09351590770535414968,
        0.00610700528898058230,
    ),
    (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359),
)
_B18 = (
    (
        0.0,
        -1.00365581030144618291e-01,
        -8.02924648241156932449e-03,
        -8.92138498045729985177e-04,
        0.0,
    ),
    (
        0.0,
        3.97849749499645077844e-01,
        1.36783778460411720168e00,
        4.98289622525382669416e-01,
        -6.37898194594723280150e-04,
    ),
    (
        -1.09676396052962061844e01,
        1.68015813878906206114e00,
        5.71779846478865511061e-02,
        -6.98210122488052056106e-03,
        3.34975017086070470649e-05,
    ),
    (
        -9.04316832390810593223e-02,
        -6.76404519071381882256e-02,
        6.75961301770459654583e-02,
        2.95552570429315521194e-02,
        -1.39180257516060693404e-05,
    ),
    (
        0.0,
        0.0,
        -9.23364619367118555360e-02,
        -1.69364939002081722752e-02,
        -1.40086798182036094347e-05,
    ),
)


def mm(xp, a, b):
    """a @ b, for matrices up to 8 x 8 summed over k in order without fused multiply-adds, as
    torch's own kernel sums products under 400 multiply-adds (bit for bit on any CPU) and as
    MKL sums an 8 x 8 product on AVX2 CPUs (MKL on AVX-512 fuses them: a few ulps apart)."""
    if a.shape[-1] > 8 or a.shape[-2] > 8 or b.shape[-1] > 8:
        return xp.matmul(a, b)
    acc = a[..., :, 0, None] * b[..., None, 0, :]
    for k in range(1, a.shape[-1]):
        acc = acc + a[..., :, k, None] * b[..., None, k, :]
    return acc


class _Taylor:
    """The polynomials of one batch `a` (k, n, n) in its dtype."""

    def __init__(self, xp, a):
        self.xp, self.dt = xp, a.dtype.type
        self.powers = [xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape), a]

    def power(self, k):
        """I, A, A^2, A^3, A^6 (the first k of them)."""
        p, xp = self.powers, self.xp
        while len(p) < k:
            p.append(
                mm(xp, p[1], p[1])
                if len(p) == 2
                else (mm(xp, p[1], p[2]) if len(p) == 3 else mm(xp, p[3], p[3]))
            )
        return p[:k]

    def lin(self, mats, coefs):
        """sum_j coefs[j] * mats[j], accumulated from 0 in order (torch's kernel)."""
        acc = self.xp.zeros_like(mats[0])
        for c, m in zip(coefs, mats):
            acc = acc + m * self.dt(c)
        return acc

    def t1(self):
        """Degree-1 Taylor polynomial of exp: I + A."""
        i, a = self.power(2)
        return i + a

    def t2(self):
        """Degree-2 Taylor polynomial of exp: I + A + A^2 / 2."""
        i, a, a2 = self.power(3)
        return i + a + a2 / self.dt(2)

    def t4(self):
        """Degree-4 Taylor polynomial of exp in torch's two-product form."""
        i, a, a2 = self.power(3)
        a3 = mm(self.xp, a2, self.lin([i, a, a2], (1 / 2.0, 1 / 6.0, 1 / 24.0)))
        return self.lin([i, a, a2, a3], (1.0, 1.0, 0.0, 1.0))

    def t8(self):
        """Degree-8 Taylor polynomial of exp by torch's three-product scheme (its constants
        rounded as its C++ constexprs are: float for float32, double for float64)."""
        dt = self.dt
        sq, x3 = float(dt(0.1330413469565007072504e2)), float(dt(2.0 / 3.0))  # C++ constexprs:
        x1, x2 = x3 * ((1.0 + sq) / 88.0), x3 * ((1.0 + sq) / 352.0)  # float, double math
        x4, x5 = (-271.0 + 29.0 * sq) / (315.0 * x3), (-11.0 + 11.0 * sq) / (1260.0 * x3)
        x6, x7 = (-99.0 + 11.0 * sq) / (5040.0 * x3), (89.0 - sq) / (5040.0 * x3)
        y2 = (857.0 - 58.0 * sq) / 630.0
        i, a, a2 = self.power(3)
        a4 = mm(self.xp, a2, self.lin([a, a2], (dt(x1), dt(x2))))
        a8 = mm(self.xp, self.lin([a2, a4], (x3, 1.0)), self.lin([i, a, a2, a4], (x4, x5, x6, x7)))
        return self.lin([i, a, a2, a4, a8], (1.0, 1.0, dt(y2), 0.0, 1.0))

    def t12(self):
        """Degree-12 Taylor polynomial of exp by torch's four-product scheme (_B12)."""
        b = [self.lin(self.power(4), row) for row in _B12]
        b[2] = b[2] + mm(self.xp, b[3], b[3])
        return b[0] + mm(self.xp, b[1] + b[2], b[2])

    def t18(self):
        """Degree-18 Taylor polynomial of exp by torch's five-product scheme (_B18)."""
        b = [self.lin(self.power(5), row) for row in _B18]
        b[3] = b[3] + mm(self.xp, b[0], b[4])
        return b[1] + mm(self.xp, b[2] + b[3], b[3])


def expm(xp, a):
    """exp of a batch (..., n, n), n >= 2, of float32/float64 matrices as torch computes it."""
    shape = a.shape
    with _quiet(xp):
        return _expm(xp, a.reshape((-1,) + shape[-2:])).reshape(shape)


def _expm(xp, a):
    dt = a.dtype.type
    theta = [dt(t) for t in _THETAS[a.dtype.itemsize]]
    norm = xp.abs(a).sum(-2).max(-1)
    if a.shape[0] == 1 and not bool(norm[0] >= theta[4]):
        res = xp.full(a.shape, xp.nan, dtype=a.dtype)  # a NaN norm takes no branch: NaN
        for i, name in enumerate(("t1", "t2", "t4", "t8", "t12")):
            lo = dt(-1) if i == 0 else theta[i - 1]
            if bool(lo < norm[0]) and bool(norm[0] <= theta[i]):
                res = getattr(_Taylor(xp, a), name)()
        return res
    s = xp.maximum(xp.ceil(xp.log2(norm / theta[5])), 0)  # a batch: always degree 18
    fin = xp.isfinite(s)
    s = xp.where(fin, s, 0)
    r = _Taylor(xp, a * (2.0**-s).astype(a.dtype)[:, None, None]).t18()
    steps = [int(v) for v in s.tolist()]
    for k in range(max(steps, default=0)):
        todo = [j for j, v in enumerate(steps) if v > k]
        r[todo] = mm(xp, r[todo], r[todo])
    r[~fin] = math.nan
    return r


def _quiet(xp):
    from .loss import _quiet as q

    return q(xp)
