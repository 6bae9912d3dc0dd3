"""REINFORCE on a toy bandit-style environment, as an RL tutorial writes it: a policy network,
Categorical(logits=...), sample, log_prob, entropy bonus, Adam. Prints one line per episode
(tests/distributions/test_dist_compat_programs.py runs it under torch and framework.compat)."""

import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
n_states, n_actions = 6, 4
policy = nn.Sequential(nn.Linear(n_states, 32), nn.ReLU(), nn.Linear(32, n_actions))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
rewards_table = torch.randn(n_states, n_actions)

for episode in range(8):
    states = torch.randint(0, n_states, (16,))
    obs = nn.functional.one_hot(states, n_states).float()
    dist = Categorical(logits=policy(obs))
    actions = dist.sample()
    rewards = rewards_table[states, actions] + 0.1 * torch.randn(16)
    returns = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
    loss = -(dist.log_prob(actions) * returns).mean() - 0.01 * dist.entropy().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    probs = Categorical(probs=dist.probs.detach()[:2]).probs
    print(
        f"episode {episode} loss {loss.item():.6f} reward {rewards.mean().item():.6f} "
        f"actions {actions[:6].tolist()} p0 {probs[0, 0].item():.6f}"
    )
