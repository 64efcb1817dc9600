"""``python -m framework.demo``: a short eager training run (linear regression).

A later version trains LeNet eagerly and with @to_static side by side.
"""
import time

import numpy as np

import framework as paddle


def main(steps=300):
    paddle.seed(0)
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((256, 3)).astype('float32'))
    true_w = np.array([[1.5], [-2.0], [0.5]], dtype='float32')
    y = paddle.to_tensor(x.numpy() @ true_w + 0.3)
    w = paddle.to_tensor(np.zeros((3, 1), 'float32'), stop_gradient=False)
    b = paddle.to_tensor(np.zeros((1,), 'float32'), stop_gradient=False)
    lr = 0.1
    start = time.perf_counter()
    for step in range(steps):
        pred = paddle.matmul(x, w) + b
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with paddle.no_grad():
            w.set_value(w - lr * w.grad)
            b.set_value(b - lr * b.grad)
        w.clear_grad()
        b.clear_grad()
        if step % 100 == 0:
            print('step %4d  loss %.6f' % (step, loss.item()))
    print('final loss %.6f in %.2fs; learned w=%s b=%.3f'
          % (loss.item(), time.perf_counter() - start, w.numpy().ravel().round(3), b.item()))


if __name__ == '__main__':
    main()
