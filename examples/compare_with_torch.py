"""Train the same MLP in framework and in PyTorch from identical weights and batches, and plot
both loss curves on one figure (needs torch: pip install torch==2.13.0).

    python examples/compare_with_torch.py --steps 200 --plot compare.png
"""
import argparse

import numpy as np

from common import framework, load_digits, plot


def build(T, weights):
    nn = T.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    with T.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(T.from_numpy(w.copy()))
    return model


def run(T, weights, x, y, batches, lr):
    model = build(T, weights)
    opt = T.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True)
    loss_fn = T.nn.CrossEntropyLoss()
    X, Y = T.from_numpy(x), T.from_numpy(y)
    losses = []
    for idx in batches:
        ib = T.from_numpy(idx)
        opt.zero_grad()
        loss = loss_fn(model(X[ib]), Y[ib])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--plot", default="compare_with_torch.png")
    args = ap.parse_args()
    import torch
    x, y, _, _ = load_digits()
    x = x.reshape(len(x), -1)
    rng = np.random.default_rng(0)
    weights = []
    for n_in, n_out in [(64, 128), (128, 10)]:
        bound = 1 / np.sqrt(n_in)
        weights += [rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32),
                    rng.uniform(-bound, bound, n_out).astype(np.float32)]
    batches = [rng.choice(len(x), 32, replace=False).astype(np.int64) for _ in range(args.steps)]
    ours = run(framework, weights, x, y, batches, args.lr)
    theirs = run(torch, weights, x, y, batches, args.lr)
    gap = max(abs(a - b) for a, b in zip(ours, theirs))
    print(f"{args.steps} steps: final loss framework {ours[-1]:.6f}, torch {theirs[-1]:.6f}, "
          f"largest per-step difference {gap:.2e}")
    plot({"train_loss": ours}, args.plot, other={"train_loss": theirs})


if __name__ == "__main__":
    main()
