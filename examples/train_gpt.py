"""Train a small nanoGPT-style GPT on Python's own documentation (ships with Python) and sample.

    python examples/train_gpt.py --steps 2000 --plot gpt.png

Character-level; causal self-attention through F.scaled_dot_product_attention, AdamW with
decay / no-decay groups, cosine learning rate with warmup, gradient clipping, and generation
with top-k filtering and multinomial sampling.
"""
import time

import numpy as np

from common import framework
from text_models import (CharCodec, batches, cosine_lr, gpt, load_text, plot_losses, progress,
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
    ap = text_args(__doc__.splitlines()[0], steps=1000, lr=1e-3, batch_size=32, block_size=64)
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=64)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--top-k", type=int, default=10)
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
    model = gpt(framework, codec.vocab_size, args.block_size, args.n_layer, args.n_head,
                args.n_embd, args.dropout).to(device)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{len(text)} characters, vocabulary {codec.vocab_size}, {n_params} parameters, "
          f"{steps} steps on {device}")
    opt = model.configure_optimizers(args.weight_decay, args.lr, (0.9, 0.95))
    history = {"train": [], "val": []}
    stream = batches(train, args.block_size, args.batch_size, steps, seed=args.seed)
    t0 = time.time()
    for it, (x, y) in enumerate(progress(stream, args.no_progress, total=steps)):
        lr = cosine_lr(it, args.lr, warmup=max(1, steps // 20), total=steps, min_lr=args.lr / 10)
        for group in opt.param_groups:
            group["lr"] = lr
        _, loss = model(framework.from_numpy(x).to(device), framework.from_numpy(y).to(device))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        framework.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        history["train"].append(loss.item())
        if (it + 1) % args.eval_every == 0 or it + 1 == steps:
            history["val"].append(evaluate(model, val, args, device))
            print(f"step {it + 1}: train loss {np.mean(history['train'][-args.eval_every:]):.4f}"
                  f", val loss {history['val'][-1]:.4f}, lr {lr:.2e}")
    print(f"final val loss {history['val'][-1]:.4f} ({time.time() - t0:.1f} s)")
    model.eval()
    gen = framework.Generator().manual_seed(args.seed)
    start = framework.from_numpy(codec.encode("The ")[None]).to(device)
    out = model.generate(start, args.sample_tokens, temperature=0.8, top_k=args.top_k,
                         generator=gen)
    print("sample:\n" + codec.decode(out[0].tolist()))
    if args.plot:
        plot_losses({"train (per step)": history["train"]}, args.plot)


if __name__ == "__main__":
    main()
