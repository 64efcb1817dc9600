"""DataLoader throughput: worker threads overlapping augmentation with training.

A data-heavy pipeline (per-sample random crop with padding, horizontal flip and
normalisation of 3x64x64 uint8 images, all numpy) feeds a compute step standing
in for training (a loop of float32 matmuls). The epoch is timed with
``num_workers=0`` (load, then compute, in turn) and with 2 worker threads
(loading overlaps the compute step). numpy releases the GIL in both.

Run:  python3 benchmarks/bench_dataloader.py [--samples N] [--epochs E]

BLAS is limited to one thread (set before numpy is imported) so that the
"training" step uses one core, like a training loop whose kernels do not fill
the machine, and the comparison measures overlap rather than BLAS threading.
"""
import os

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework  # noqa: E402
from framework.io import DataLoader, Dataset  # noqa: E402
from framework.vision import transforms as T  # noqa: E402


class RandomImages(Dataset):
    """uint8 HWC images made once, augmented per access."""

    def __init__(self, n, size=72, transform=None):
        rng = np.random.default_rng(0)
        self.images = rng.integers(0, 256, size=(n, size, size, 3), dtype=np.uint8)
        self.labels = rng.integers(0, 10, size=n)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(self.images[i]), self.labels[i]


def make_transform():
    return T.Compose([
        T.RandomCrop(64, padding=4),
        T.RandomHorizontalFlip(),
        T.Transpose(),                                   # HWC -> CHW, stays numpy
        T.Normalize(mean=[127.5] * 3, std=[127.5] * 3),  # float32 CHW
    ])


def train_step(batch, weights):
    """Stand-in for forward/backward: matmuls on the batch's features."""
    x = batch.numpy().reshape(batch.shape[0], -1)[:, :1024]
    for w in weights:
        x = np.tanh(x @ w)
    return float(x.sum())


def run_epoch(loader, weights):
    start = time.perf_counter()
    n = 0
    for images, labels in loader:
        train_step(images, weights)
        n += 1
    return time.perf_counter() - start, n


def time_loader(ds, workers, epochs, batch_size, weights):
    loader = DataLoader(ds, batch_size=batch_size, shuffle=True, num_workers=workers,
                        drop_last=True)
    run_epoch(loader, weights)                          # warm-up
    times = [run_epoch(loader, weights)[0] for _ in range(epochs)]
    return min(times)


def time_parts(ds, batch_size, weights, batches=10):
    """Data-only and compute-only times per batch, to show what can overlap."""
    loader = DataLoader(ds, batch_size=batch_size, shuffle=True)
    it = iter(loader)
    start = time.perf_counter()
    batch = [next(it) for _ in range(batches)]
    data = (time.perf_counter() - start) / batches
    start = time.perf_counter()
    for images, _ in batch:
        train_step(images, weights)
    compute = (time.perf_counter() - start) / batches
    return data, compute


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--samples', type=int, default=2048)
    ap.add_argument('--batch-size', type=int, default=64)
    ap.add_argument('--epochs', type=int, default=3)
    ap.add_argument('--compute-layers', type=int, default=12)
    args = ap.parse_args()

    framework.seed(0)
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal((1024, 1024)).astype(np.float32) / 32
               for _ in range(args.compute_layers)]
    ds = RandomImages(args.samples, transform=make_transform())
    data, compute = time_parts(ds, args.batch_size, weights)
    print('per batch of %d: data %.1f ms, compute %.1f ms'
          % (args.batch_size, data * 1e3, compute * 1e3))
    t0 = time_loader(ds, 0, args.epochs, args.batch_size, weights)
    t2 = time_loader(ds, 2, args.epochs, args.batch_size, weights)
    print('epoch of %d samples: num_workers=0 %.3f s, num_workers=2 %.3f s, '
          'ratio (2 workers / 0 workers) %.2f' % (args.samples, t0, t2, t2 / t0))


if __name__ == '__main__':
    main()
