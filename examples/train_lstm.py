"""Train a character-level LSTM on Python's own documentation (ships with Python) and sample.

    python examples/train_lstm.py --steps 1000 --plot lstm.png

Embedding -> 2-layer nn.LSTM (batch_first) -> linear head; Adam, gradient clipping, and
generation that carries the LSTM state from one character to the next.
"""
import time

import numpy as np

from common import framework
from text_models import (CharCodec, batches, char_lstm, load_text, plot_losses, progress,
                         text_args)


@framework.no_grad()
def evaluate(model, data, args, device, n_batches=8):
    model.eval()
    losses = [model(framework.from_numpy(x).to(device), framework.from_numpy(y).to(device))[1]
              .item() for x, y in batches(data, args.block_size, args.batch_size, n_batches,
                                          seed=12345)]
    model.train()
    return float(np.mean(losses))


def main():
    ap = text_args(__doc__.splitlines()[0], steps=1000, lr=3e-3, batch_size=32, block_size=64)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--dropout", type=float, default=0.0)
    args = ap.parse_args()
    framework.manual_seed(args.seed)
    device = framework.device(args.device)
    text = load_text()
    codec = CharCodec(text)
    data = codec.encode(text)
    split = int(0.9 * len(data))
    train, val = data[:split], data[split:]
    steps = args.steps if args.epochs is None else \
        args.epochs * len(train) // (args.batch_size * args.block_size)
    model = char_lstm(framework, codec.vocab_size, hidden=args.hidden, num_layers=args.layers,
                      dropout=args.dropout).to(device)
    print(f"{len(text)} characters, vocabulary {codec.vocab_size}, "
          f"{sum(p.numel() for p in model.parameters())} parameters, {steps} steps on {device}")
    opt = framework.optim.Adam(model.parameters(), lr=args.lr)
    sched = framework.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    history = {"train": [], "val": []}
    t0 = time.time()
    stream = batches(train, args.block_size, args.batch_size, steps, seed=args.seed)
    for it, (x, y) in enumerate(progress(stream, args.no_progress, total=steps)):
        _, loss, _ = model(framework.from_numpy(x).to(device), framework.from_numpy(y).to(device))
        opt.zero_grad()
        loss.backward()
        framework.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        history["train"].append(loss.item())
        if (it + 1) % args.eval_every == 0 or it + 1 == steps:
            history["val"].append(evaluate(model, val, args, device))
            print(f"step {it + 1}: train loss {np.mean(history['train'][-args.eval_every:]):.4f}"
                  f", val loss {history['val'][-1]:.4f}")
    print(f"final val loss {history['val'][-1]:.4f} ({time.time() - t0:.1f} s)")
    model.eval()
    gen = framework.Generator().manual_seed(args.seed)
    start = framework.from_numpy(codec.encode("The ")[None]).to(device)
    out = model.generate(start, args.sample_tokens, temperature=0.8, generator=gen)
    print("sample:\n" + codec.decode(out[0].tolist()))
    if args.plot:
        plot_losses({"train (per step)": history["train"]}, args.plot)


if __name__ == "__main__":
    main()
