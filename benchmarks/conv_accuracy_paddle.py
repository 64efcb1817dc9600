"""Real Paddle's float32 conv accuracy on the inputs ``conv_accuracy.py`` wrote.

    /work/venv_paddle/bin/python benchmarks/conv_accuracy_paddle.py [--dir DIR]

Reads DIR/manifest.json and the .npy inputs, computes the same figures as
``conv_accuracy.py`` (norm-relative error of float32 vs float64) with Paddle
itself, and writes DIR/paddle_errors.json. It never imports ``framework``:
the two sides share only the files.
"""
import argparse
import json
import os

import numpy as np
import paddle
import paddle.nn.functional as F


def rel_err(a32, a64):
    a32, a64 = np.asarray(a32, np.float64), np.asarray(a64, np.float64)
    return float(np.linalg.norm(a32 - a64) / max(np.linalg.norm(a64), 1e-300))


def conv_results(d, i, case, dtype):
    x, w, gy = (np.load(os.path.join(d, 'conv%d_%s.npy' % (i, t))).astype(dtype)
                for t in ('x', 'w', 'gy'))
    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(w, stop_gradient=False)
    y = F.conv2d(xt, wt, stride=case['stride'], padding=case['padding'], groups=case['groups'])
    (y * paddle.to_tensor(gy)).sum().backward()
    return {'out': y.numpy(), 'x_grad': xt.grad.numpy(), 'w_grad': wt.grad.numpy()}


def model_grads(d, model_name, mode, dtype):
    params = dict(np.load(os.path.join(d, 'model_params.npz')))
    paddle.set_default_dtype(dtype)
    try:
        model = getattr(paddle.vision.models, model_name)(num_classes=10)
    finally:
        paddle.set_default_dtype('float32')
    model.set_state_dict({k: v.astype(dtype) for k, v in params.items()})
    model.train() if mode == 'train' else model.eval()
    x = paddle.to_tensor(np.load(os.path.join(d, 'model_x.npy')).astype(dtype))
    r = paddle.to_tensor(np.load(os.path.join(d, 'model_r.npy')).astype(dtype))
    (model(x) * r).sum().backward()
    # BatchNorm's running mean/variance are parameters without a gradient
    return {n: p.grad.numpy() for n, p in model.named_parameters() if p.grad is not None}


def model_summary(g32, g64):
    errs = {n: rel_err(g32[n], g64[n]) for n in g64}
    conv = [n for n in g64 if g64[n].ndim == 4]
    cat32 = np.concatenate([g32[n].ravel().astype(np.float64) for n in conv])
    cat64 = np.concatenate([g64[n].ravel() for n in conv])
    vals = np.array(list(errs.values()))
    return {'median': float(np.median(vals)), 'max': float(vals.max()),
            'conv_weights': rel_err(cat32, cat64)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--dir', default='/tmp/conv_accuracy')
    args = ap.parse_args()
    d = args.dir
    with open(os.path.join(d, 'manifest.json')) as f:
        manifest = json.load(f)
    out = {'manifest': manifest, 'conv': [], 'model': None}
    for i, case in enumerate(manifest['conv']):
        r32, r64 = conv_results(d, i, case, np.float32), conv_results(d, i, case, np.float64)
        out['conv'].append({k: rel_err(r32[k], r64[k]) for k in r64})
    if manifest['model'] != 'none':
        g32 = model_grads(d, manifest['model'], manifest['mode'], 'float32')
        g64 = model_grads(d, manifest['model'], manifest['mode'], 'float64')
        out['model'] = model_summary(g32, g64)
        ours = os.path.join(d, 'framework_model_grads64.npz')
        if os.path.exists(ours):
            theirs = dict(np.load(ours))
            out['float64_agreement'] = max(rel_err(g64[n], theirs[n]) for n in g64)
            print('float64 gradients, Paddle vs framework: max norm-relative difference %.2e'
                  % out['float64_agreement'])
    with open(os.path.join(d, 'paddle_errors.json'), 'w') as f:
        json.dump(out, f, indent=1)
    print(json.dumps({k: v for k, v in out.items() if k != 'manifest'}, indent=1))


if __name__ == '__main__':
    main()
