"""float32 gradient accuracy of real Paddle, for run_all.py's accuracy figure.

    /work/venv_paddle/bin/python benchmarks/paddle_fp32_error.py

Computes the gradients of a resnet18 (``paddle.vision.models.resnet18``,
10 classes, input 2x3x32x32, mean cross-entropy) in float32 and in float64
from the same weights, and writes the relative error of the float32 gradients
to ``paddle_fp32_error.json`` next to this file; run_all.py reads it.

The net is in eval mode (batch norm with its running statistics): in train
mode a batch of 2 normalizes layer4's 1x1 maps over 2 values, whose output is
+-1 whatever the input, so the gradients below it are rounding noise (relative
errors ~0.2 in every framework) and say nothing about accuracy.

This file must not import ``framework``: it runs under real Paddle. The
weights, data and error measure are defined here (numpy only at import) and
run_all.py imports them, so all three frameworks compute the same thing.
"""
import json
import os

import numpy as np

BATCH, SIZE, CLASSES = 2, 32, 10
JSON_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'paddle_fp32_error.json')


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, 3, SIZE, SIZE))
    y = rng.integers(0, CLASSES, (BATCH,))
    return x, y


def make_weights(shapes, seed=1):
    """float64 weights for a Paddle-named state dict ({name: shape}): He-normal
    convolutions, small random batch-norm affine parameters and statistics
    (not the identity, so no term is trivially exact), uniform linear layers."""
    rng = np.random.default_rng(seed)
    out = {}
    for name in sorted(shapes):
        shape = tuple(shapes[name])
        if name.endswith('_variance'):
            out[name] = rng.uniform(0.5, 1.5, shape)
        elif name.endswith('_mean') or (name.endswith('bias') and len(shape) == 1):
            out[name] = rng.normal(0, 0.1, shape)
        elif len(shape) == 1:                     # batch-norm scale
            out[name] = rng.uniform(0.5, 1.5, shape)
        elif len(shape) == 4:
            fan_in = np.prod(shape[1:])
            out[name] = rng.normal(0, np.sqrt(2.0 / fan_in), shape)
        else:                                     # Paddle's Linear weight: [in, out]
            bound = 1 / np.sqrt(shape[0])
            out[name] = rng.uniform(-bound, bound, shape)
    return out


def relative_error(grads32, grads64):
    """Max over parameters of max|g32 - g64| / max|g64| (norm-wise, so that
    tiny entries of a gradient do not dominate)."""
    worst = 0.0
    for name, g64 in grads64.items():
        g32 = np.asarray(grads32[name], np.float64)
        scale = np.abs(g64).max()
        if scale > 0:
            worst = max(worst, float(np.abs(g32 - g64).max() / scale))
    return worst


def paddle_grads(paddle, dtype):
    """{parameter name: gradient} of the resnet18 in ``dtype`` under real Paddle
    (or anything with its API)."""
    paddle.set_default_dtype(dtype)
    try:
        net = paddle.vision.models.resnet18(num_classes=CLASSES)
    finally:
        paddle.set_default_dtype('float32')
    shapes = {k: v.shape for k, v in net.state_dict().items()}
    net.set_state_dict({k: paddle.to_tensor(v.astype(dtype))
                        for k, v in make_weights(shapes).items()})
    net.eval()
    x, y = make_data()
    loss = paddle.nn.functional.cross_entropy(net(paddle.to_tensor(x.astype(dtype))),
                                              paddle.to_tensor(y))
    loss.backward()
    return {name: p.grad.numpy() for name, p in net.named_parameters()
            if not p.stop_gradient}      # batch-norm statistics have none


def main():
    import paddle
    paddle.set_device('cpu')
    err = relative_error(paddle_grads(paddle, 'float32'), paddle_grads(paddle, 'float64'))
    result = {'framework': 'paddle', 'version': paddle.__version__, 'model': 'resnet18',
              'input': [BATCH, 3, SIZE, SIZE], 'max_relative_error': err}
    with open(JSON_PATH, 'w') as f:
        json.dump(result, f, indent=1)
    print('paddle %s: float32 gradient max relative error %.3g -> %s'
          % (paddle.__version__, err, JSON_PATH))


if __name__ == '__main__':
    main()
