"""Float32 accuracy of convolutions: framework vs real Paddle, both against float64.

    python3 benchmarks/conv_accuracy.py [--dir DIR] [--model resnet50|resnet18|resnext50_32x4d|none]
                                        [--mode train|eval] [--input 2x3x64x64]
                                        [--exhaustive-search]
    /work/venv_paddle/bin/python benchmarks/conv_accuracy_paddle.py [--dir DIR]
    python3 benchmarks/conv_accuracy.py [--dir DIR] ...      # again: prints the ratios

The first run writes the inputs (seeded) as .npy files and a manifest under
DIR (default /tmp/conv_accuracy), computes the framework's figures and saves
them; ``conv_accuracy_paddle.py`` (which never imports framework) reads the
same inputs, computes real Paddle's figures and saves them next to ours; any
later run of this script prints ours/Paddle ratios.

The error measure is the norm-relative error ``||a32 - a64||_2 / ||a64||_2``
of a float32 result against the same computation in float64 from the same
(float32-representable) inputs: for conv2d the output, the input gradient
and the weight gradient of ``sum(conv2d(x, w) * gy)``; for the model the
gradient of every parameter of ``sum(model(x) * r)`` in training mode (batch
statistics), summarised as the median and max over parameters and as one
norm-relative error over all conv weight gradients concatenated.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework as paddle  # noqa: E402
import framework.nn.functional as F  # noqa: E402

# name, x shape, weight shape, stride, padding, groups
CONV_CASES = [
    ('3x3 s1', (8, 32, 16, 16), (32, 32, 3, 3), 1, 1, 1),
    ('3x3 s1 few channels', (16, 4, 32, 32), (8, 4, 3, 3), 1, 1, 1),
    ('3x3 s2', (8, 32, 16, 16), (64, 32, 3, 3), 2, 1, 1),
    ('1x1', (8, 64, 16, 16), (32, 64, 1, 1), 1, 0, 1),
    ('7x7 s2', (4, 3, 64, 64), (16, 3, 7, 7), 2, 3, 1),
    ('grouped 3x3', (8, 32, 16, 16), (32, 4, 3, 3), 1, 1, 8),
    ('depthwise 3x3', (8, 32, 16, 16), (32, 1, 3, 3), 1, 1, 32),
]
SEED = 2024


def rel_err(a32, a64):
    a32, a64 = np.asarray(a32, np.float64), np.asarray(a64, np.float64)
    return float(np.linalg.norm(a32 - a64) / max(np.linalg.norm(a64), 1e-300))


# ---- inputs ---------------------------------------------------------------------

def write_inputs(d, model_name, mode, model_input):
    """Seeded float32-representable inputs, saved as float64 .npy files."""
    rng = np.random.default_rng(SEED)

    def f32(a):
        return a.astype(np.float32).astype(np.float64)

    cases = []
    for i, (name, xs, ws, s, p, g) in enumerate(CONV_CASES):
        fan_in = ws[1] * ws[2] * ws[3]
        x = f32(rng.standard_normal(xs))
        w = f32(rng.standard_normal(ws) / np.sqrt(fan_in))
        oh = (xs[2] + 2 * p - ws[2]) // s + 1
        ow = (xs[3] + 2 * p - ws[3]) // s + 1
        gy = f32(rng.standard_normal((xs[0], ws[0], oh, ow)))
        for tag, a in (('x', x), ('w', w), ('gy', gy)):
            np.save(os.path.join(d, 'conv%d_%s.npy' % (i, tag)), a)
        cases.append({'name': name, 'stride': s, 'padding': p, 'groups': g})
    manifest = {'seed': SEED, 'conv': cases, 'model': model_name, 'mode': mode,
                'model_input': list(model_input)}
    if model_name != 'none':
        paddle.seed(SEED)
        model = getattr(paddle.vision.models, model_name)(num_classes=10)
        params = {k: v.numpy().astype(np.float64) for k, v in model.state_dict().items()}
        np.savez(os.path.join(d, 'model_params.npz'), **params)
        np.save(os.path.join(d, 'model_x.npy'), f32(rng.standard_normal(model_input)))
        np.save(os.path.join(d, 'model_r.npy'), f32(rng.standard_normal((model_input[0], 10))))
    with open(os.path.join(d, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
    return manifest


# ---- framework figures ------------------------------------------------------------

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


def framework_figures(d, manifest):
    out = {'conv': [], 'model': None}
    for i, case in enumerate(manifest['conv']):
        r32, r64 = conv_results(d, i, case, np.float32), conv_results(d, i, case, np.float64)
        out['conv'].append({k: rel_err(r32[k], r64[k]) for k in r64})
    if manifest['model'] != 'none':
        g32 = model_grads(d, manifest['model'], manifest['mode'], 'float32')
        g64 = model_grads(d, manifest['model'], manifest['mode'], 'float64')
        out['model'] = model_summary(g32, g64)
        np.savez(os.path.join(d, 'framework_model_grads64.npz'), **g64)
    return out


# ---- report -------------------------------------------------------------------------

def report(manifest, ours, theirs):
    def fmt(a, b):
        if b is None:
            return '%9.2e' % a
        return '%9.2e vs %9.2e (x%.2f)' % (a, b, a / b)

    print('norm-relative float32 error vs float64: ours%s'
          % ('' if theirs is None else ' vs Paddle (ours/Paddle)'))
    for i, case in enumerate(manifest['conv']):
        e = ours['conv'][i]
        p = theirs['conv'][i] if theirs else {}
        print('  %-20s ' % case['name'] + ' | '.join(
            '%s %s' % (k, fmt(e[k], p.get(k))) for k in ('out', 'x_grad', 'w_grad')))
    if ours['model']:
        p = theirs['model'] if theirs else {}
        print('  %s (%s mode, input %s) parameter grads: '
              % (manifest['model'], manifest['mode'], 'x'.join(map(str, manifest['model_input']))) + ' | '.join(
            '%s %s' % (k, fmt(ours['model'][k], p.get(k)))
            for k in ('median', 'max', 'conv_weights')))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--dir', default='/tmp/conv_accuracy')
    ap.add_argument('--model', default='resnet50', choices=['resnet50', 'resnet18', 'resnext50_32x4d', 'none'])
    ap.add_argument('--mode', default='train', choices=['train', 'eval'],
                    help='BatchNorm with batch statistics (train) or running ones (eval)')
    ap.add_argument('--input', default='2x3x64x64', help='model input shape NxCxHxW')
    ap.add_argument('--exhaustive-search', action='store_true',
                    help='run with FLAGS_cudnn_exhaustive_search (timed algorithm choice)')
    args = ap.parse_args()
    paddle.set_flags({'FLAGS_cudnn_exhaustive_search': args.exhaustive_search})
    os.makedirs(args.dir, exist_ok=True)
    manifest = write_inputs(args.dir, args.model, args.mode,
                            [int(v) for v in args.input.split('x')])
    ours = framework_figures(args.dir, manifest)
    with open(os.path.join(args.dir, 'framework_errors.json'), 'w') as f:
        json.dump(ours, f, indent=1)
    theirs = None
    path = os.path.join(args.dir, 'paddle_errors.json')
    if os.path.exists(path):
        with open(path) as f:
            theirs = json.load(f)
        if theirs.get('manifest') != manifest:
            print('(Paddle figures in %s are for other inputs: rerun conv_accuracy_paddle.py)'
                  % path)
            theirs = None
    report(manifest, ours, theirs)
    if theirs is None:
        print('\nnow run: /work/venv_paddle/bin/python %s --dir %s, then this script again'
              % (os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              'conv_accuracy_paddle.py'), args.dir))


if __name__ == '__main__':
    main()
