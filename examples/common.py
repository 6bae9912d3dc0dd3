"""The training loop shared by the examples: data, epochs, checkpoints, progress bars, plots."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import framework  # noqa: E402
from framework import nn  # noqa: E402
from framework.data import load_digits, load_mnist  # noqa: E402
from framework.utils.data import DataLoader, TensorDataset  # noqa: E402


def parse_args(description, epochs, lr, batch_size=32):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--lr", type=float, default=lr)
    ap.add_argument("--batch-size", type=int, default=batch_size)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=None,
                    help="directory with MNIST IDX files (default: scikit-learn's digits)")
    ap.add_argument("--checkpoint", default=None, help="save a checkpoint here after each epoch")
    ap.add_argument("--resume", default=None,
                    help="resume from this checkpoint; a different --epochs re-plans the "
                         "cosine schedule over the new total (see README, Resuming)")
    ap.add_argument("--stop-after", type=int, default=None,
                    help="stop after this many epochs (the schedule still spans --epochs)")
    ap.add_argument("--plot", default=None, help="PNG of the loss and accuracy curves")
    ap.add_argument("--no-progress", action="store_true", help="no tqdm progress bars")
    return ap.parse_args()


def load_data(args):
    if args.data:
        return load_mnist(args.data)
    return load_digits(seed=0)


def evaluate(model, x, y, batch_size=512):
    model.eval()
    correct, total_loss = 0, 0.0
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    with framework.no_grad():
        for i in range(0, len(x), batch_size):
            xb, yb = x[i:i + batch_size], y[i:i + batch_size]
            out = model(xb)
            total_loss += loss_fn(out, yb).item()
            correct += (out.argmax(1) == yb).sum().item()
    model.train()
    return total_loss / len(x), correct / len(x)


def train(model_fn, args, flatten=False):
    """Train model_fn() with Adam and a cosine schedule; returns (model, history)."""
    framework.manual_seed(args.seed)
    device = framework.device(args.device)
    x_tr, y_tr, x_te, y_te = load_data(args)
    if flatten:
        x_tr, x_te = x_tr.reshape(len(x_tr), -1), x_te.reshape(len(x_te), -1)
    model = model_fn(x_tr.shape[1:]).to(device)
    optimizer = framework.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = framework.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    start_epoch = 0
    if args.resume:
        ckpt = framework.load(args.resume, map_location=device)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        framework.set_rng_state(ckpt["rng_state"])
        history, start_epoch = ckpt["history"], ckpt["epoch"]
        print(f"resumed from {args.resume} at epoch {start_epoch}")
        _replan_schedule(scheduler, optimizer, args.epochs)
    train_set = TensorDataset(framework.tensor(x_tr, device=device),
                              framework.tensor(y_tr, device=device))
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    x_te, y_te = framework.tensor(x_te, device=device), framework.tensor(y_te, device=device)
    loss_fn = nn.CrossEntropyLoss()
    history.setdefault("lr", [])
    stop_after = getattr(args, "stop_after", None)
    end = args.epochs if stop_after is None else min(args.epochs, stop_after)
    bar = _progress(range(start_epoch, end), args, desc="epochs")
    t0 = time.time()
    for epoch in bar:
        running, seen = 0.0, 0
        history["lr"].append(optimizer.param_groups[0]["lr"])
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * len(yb)
            seen += len(yb)
        scheduler.step()
        test_loss, test_acc = evaluate(model, x_te, y_te)
        history["train_loss"].append(running / seen)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        _report(bar, epoch, history, args)
        if args.checkpoint:
            framework.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "epoch": epoch + 1,
                            "rng_state": framework.get_rng_state(), "history": history},
                           args.checkpoint)
    print(f"test accuracy {history['test_acc'][-1]:.4f} after {end} epochs "
          f"({time.time() - t0:.1f} s on {device})")
    if args.plot:
        plot(history, args.plot)
    return model, history


def _replan_schedule(scheduler, optimizer, epochs):
    """Resuming with a different --epochs: the cosine is re-planned over the new total.

    The checkpoint's scheduler spans the epochs it was started with; continuing it past that
    would take the lr to eta_min and back up again. Instead T_max becomes `epochs` and the lr
    continues on the cosine of the new length at the checkpoint's epoch (for a longer run the
    lr steps back up to that curve, then anneals to eta_min at the new last epoch). With the
    same --epochs nothing changes and the run is bit for bit the uninterrupted one."""
    if scheduler.T_max == epochs:
        return
    old = scheduler.T_max
    scheduler.T_max = epochs
    for group, lr in zip(optimizer.param_groups, scheduler._get_closed_form_lr()):
        group["lr"] = lr
    scheduler._last_lr = [group["lr"] for group in optimizer.param_groups]
    print(f"cosine schedule re-planned from {old} to {epochs} epochs: lr "
          f"{scheduler._last_lr[0]:.3g} at epoch {scheduler.last_epoch}")


def _progress(iterable, args, desc):
    if args.no_progress:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=desc)


def _report(bar, epoch, history, args):
    msg = (f"epoch {epoch + 1}: train loss {history['train_loss'][-1]:.4f}, "
           f"test loss {history['test_loss'][-1]:.4f}, test acc {history['test_acc'][-1]:.4f}")
    if hasattr(bar, "set_postfix_str"):
        bar.set_postfix_str(f"loss {history['train_loss'][-1]:.3f} acc {history['test_acc'][-1]:.3f}")
    else:
        print(msg)


def plot(history, path):
    """Loss and accuracy curves side by side (framework.testing's ComparisonReport.plot draws
    a comparison with torch)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(history["train_loss"], label="train")
    if history.get("test_loss"):
        ax1.plot(history["test_loss"], label="test")
    if history.get("test_acc"):
        ax2.plot(history["test_acc"], label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy loss")
    ax1.legend()
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("test accuracy")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")
