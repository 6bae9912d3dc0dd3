"""A small VAE as the tutorials write it: an encoder giving (mu, log_var), Normal(mu, std)
posterior with rsample (reparameterisation), kl_divergence against a Normal(0, 1) prior,
an Independent Bernoulli likelihood. Prints the ELBO terms per step."""

import torch
import torch.distributions as D
import torch.nn as nn


class VAE(nn.Module):
    def __init__(self, n_in=12, n_z=3):
        super().__init__()
        self.enc = nn.Linear(n_in, 2 * n_z)
        self.dec = nn.Sequential(nn.Linear(n_z, 16), nn.Tanh(), nn.Linear(16, n_in))

    def forward(self, x):
        mu, log_var = self.enc(x).chunk(2, dim=-1)
        q = D.Normal(mu, torch.exp(0.5 * log_var))
        z = q.rsample()
        prior = D.Normal(torch.zeros_like(mu), torch.ones_like(mu))
        kl = D.kl_divergence(q, prior).sum(-1)
        lik = D.Independent(D.Bernoulli(logits=self.dec(z)), 1)
        return lik.log_prob(x), kl


torch.manual_seed(0)
data = (torch.rand(64, 12) > 0.5).float()
model = VAE()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(10):
    rec, kl = model(data)
    loss = (kl - rec).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        f"step {step} loss {loss.item():.6f} rec {rec.mean().item():.6f} kl {kl.mean().item():.6f}"
    )
mvn = D.MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 0.0], [0.5, 2.0]]))
print(
    f"mvn sample {mvn.sample((2,)).flatten().tolist()} lp {mvn.log_prob(torch.ones(2)).item():.6f}"
)
