"""DataLoader throughput: worker threads overlapping augmentation with training.

A data-heavy pipeline prepares each sample with numpy (random crop with padding,
bilinear resize to 64x64, horizontal flip, HWC->CHW, normalisation: a 3x64x64
float32 image) and feeds a compute step standing in for training (a loop of
float32 matmuls). The epoch is timed with ``num_workers=0`` (load, then compute,
in turn) and with 2 worker threads (loading overlaps the compute step); numpy
releases the GIL in both. Runs alternate between the two settings and the best
of ``--repeats`` is reported, because other processes on the machine disturb
single runs; the load average is printed for the same reason.

Run:  python3 benchmarks/bench_dataloader.py [--samples N] [--repeats R]

On the 2-core dev machine with nothing else running the ratio printed was
0.63-0.71 (epoch 0.60-0.66 s with 0 workers, 0.39-0.47 s with 2); while other
processes keep a core busy there is nothing to overlap with and it is ~1.0.

BLAS is limited to one thread (set before numpy is imported) so that the
"training" step uses one core, like a training loop whose kernels do not fill
the machine, and the comparison measures overlap rather than BLAS threading.
"""
import os

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework  # noqa: E402
from framework.io import DataLoader, Dataset  # noqa: E402
from framework.vision import transforms as T  # noqa: E402


class RandomImages(Dataset):
    """uint8 HWC images made once, augmented on every access."""

    def __init__(self, n, size=88, transform=None):
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
        T.RandomCrop(80, padding=4),
        T.Resize((64, 64)),                              # bilinear, float32 numpy
        T.RandomHorizontalFlip(),
        T.Transpose(),                                   # HWC -> CHW
        T.Normalize(mean=[127.5] * 3, std=[127.5] * 3),  # float32 3x64x64
    ])


def train_step(batch, weights):
    """Stand-in for forward/backward: matmuls on the batch's features."""
    x = batch.numpy().reshape(batch.shape[0], -1)[:, :weights[0].shape[0]]
    for w in weights:
        x = np.tanh(x @ w)
    return float(x.sum())


def run_epoch(loader, weights):
    wall, cpu = time.perf_counter(), time.process_time()
    for images, labels in loader:
        train_step(images, weights)
    return time.perf_counter() - wall, time.process_time() - cpu


def time_parts(ds, batch_size, weights, batches=8):
    """Data-only and compute-only time per batch: what there is to overlap."""
    it = iter(DataLoader(ds, batch_size=batch_size, shuffle=True))
    start = time.perf_counter()
    batch = [next(it) for _ in range(batches)]
    data = (time.perf_counter() - start) / batches
    start = time.perf_counter()
    for images, _ in batch:
        train_step(images, weights)
    return data, (time.perf_counter() - start) / batches


def load_average():
    try:
        return '%.2f' % os.getloadavg()[0]
    except OSError:
        return '?'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--samples', type=int, default=1024)
    ap.add_argument('--batch-size', type=int, default=64)
    ap.add_argument('--repeats', type=int, default=5)
    ap.add_argument('--compute-layers', type=int, default=12)
    ap.add_argument('--workers', type=int, default=2)
    args = ap.parse_args()

    framework.seed(0)
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal((1024, 1024)).astype(np.float32) / 32
               for _ in range(args.compute_layers)]
    ds = RandomImages(args.samples, transform=make_transform())
    print('load average before: %s (%d cores)' % (load_average(), os.cpu_count()))
    data, compute = time_parts(ds, args.batch_size, weights)
    print('per batch of %d: data %.1f ms, compute %.1f ms'
          % (args.batch_size, data * 1e3, compute * 1e3))
    settings = (0, args.workers)
    loaders = {w: DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=w,
                             drop_last=True) for w in settings}
    times = {w: [] for w in settings}
    for w in settings:
        run_epoch(loaders[w], weights)                   # warm-up
    for _ in range(args.repeats):
        for w in settings:
            times[w].append(run_epoch(loaders[w], weights))
    for w in settings:
        best = min(times[w])
        print('num_workers=%d: epoch of %d samples best %.3f s, median %.3f s, '
              '%.2f cores busy' % (w, args.samples, best[0],
                                   statistics.median(t for t, _ in times[w]), best[1] / best[0]))
    t0, tw = min(times[0])[0], min(times[args.workers])[0]
    print('ratio (num_workers=%d / num_workers=0): %.2f' % (args.workers, tw / t0))
    print('load average after: %s' % load_average())


if __name__ == '__main__':
    main()
