import sys; sys.path.insert(0,"tests"); import cpu_pin
import numpy as np, torch, framework
def F(L): return L.nn.functional
cases = {
 "poisson_log": lambda L, a, b: F(L).poisson_nll_loss(a, b.abs(), log_input=True, reduction="none"),
 "poisson_nolog": lambda L, a, b: F(L).poisson_nll_loss(a.abs(), b.abs(), log_input=False, reduction="none"),
 "kl_div": lambda L, a, b: F(L).kl_div(a, b.abs(), reduction="none"),
 "kl_div_logt": lambda L, a, b: F(L).kl_div(a, b, reduction="none", log_target=True),
 "gaussian_nll": lambda L, a, b: F(L).gaussian_nll_loss(a, b, (a*b).abs() + 0.1, reduction="none"),
 "soft_margin": lambda L, a, b: F(L).soft_margin_loss(a, b.sign(), reduction="none"),
 "logsumexp": lambda L, a, b: L.logsumexp(a, 1),
 "bce_logits": lambda L, a, b: F(L).binary_cross_entropy_with_logits(a, b.abs().clamp(0, 1), reduction="none"),
 "cosine_sim": lambda L, a, b: F(L).cosine_similarity(a, b),
 "glu": lambda L, a, b: F(L).glu(a),
 "logsigmoid": lambda L, a, b: F(L).logsigmoid(a),
 "sinc": lambda L, a, b: L.sinc(a),
 "xlogy": lambda L, a, b: L.xlogy(a, b.abs()),
 "pow_half": lambda L, a, b: a.abs().pow(0.5),
 "norm": lambda L, a, b: L.linalg.vector_norm(a, dim=1),
 "dist": lambda L, a, b: L.cdist(a, b),
}
for name, f in cases.items():
    for dt in ("float32","float64"):
        bad=[0,0]; tot=[0,0]
        for seed in range(3):
            rng=np.random.default_rng(seed)
            a=(rng.standard_normal((16, 24))*2).astype(dt); b=(rng.standard_normal((16, 24))*2).astype(dt)
            res=[]
            for L in (framework, torch):
                A=L.from_numpy(a.copy()).requires_grad_(); B=L.from_numpy(b.copy())
                y=f(L, A, B)
                g=np.random.default_rng(seed+7).standard_normal(tuple(y.shape)).astype(dt)
                y.backward(L.from_numpy(g))
                res.append((y.detach().numpy(), A.grad.numpy()))
            for i in range(2):
                u, v = res[0][i], res[1][i]
                with np.errstate(invalid="ignore"):
                    bad[i]+=int((~((u==v)|(np.isnan(u)&np.isnan(v)))).sum()); tot[i]+=u.size
        print(f"{name:14s} {dt} out {bad[0]}/{tot[0]} grad {bad[1]}/{tot[1]}")
