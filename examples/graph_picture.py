"""Draw the autograd graph of z = log(x ** 3) (seed 001's example) with framework.viz.

Writes graph.dot, and graph.dot.svg / graph.dot.png when graphviz's `dot` is installed.
Run: python examples/graph_picture.py [output_dir]
"""
import os
import shutil
import sys

import framework
from framework.viz import make_dot


def main(out_dir="."):
    framework.manual_seed(1)
    x = (framework.rand(3, 3) + 0.5).requires_grad_()  # positive, so log(x ** 3) is finite
    z = framework.log(x ** 3)
    dot = make_dot(z, params={"x": x})
    path = os.path.join(out_dir, "graph.dot")
    dot.save(path)
    print(dot.source)
    print(f"wrote {path}")
    if shutil.which("dot"):
        for fmt in ("svg", "png"):
            print("wrote", dot.render(path, format=fmt))
    else:
        print("graphviz's `dot` is not installed: only the DOT source was written")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
