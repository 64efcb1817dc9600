"""framework.Model (fit / evaluate / predict / *_batch / save / load), the
callbacks, the progress bar and framework.summary."""
import os
import re

import numpy as np
import pytest

import framework as paddle
from framework import nn
from framework.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint,
                                 ProgBarLogger)
from framework.hapi.progressbar import ProgressBar
from framework.static import InputSpec


def make_data(n=96, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype('float32')
    y = (x[:, :1] - 0.5 * x[:, 1:2] > 0).astype('int64')
    return x, y


def make_net():
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))


def make_model(lr=0.05, metrics=True, inputs=None, opt='adam'):
    net = make_net()
    model = paddle.Model(net, inputs=inputs)
    if opt == 'adam':
        optimizer = paddle.optimizer.Adam(lr, parameters=model.parameters())
    else:
        optimizer = paddle.optimizer.SGD(lr, parameters=model.parameters())
    model.prepare(optimizer, nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy() if metrics else None)
    return model


def dataset(n=96, seed=0):
    return paddle.io.TensorDataset(list(make_data(n, seed)))


class Recorder(Callback):
    """Records every hook call as 'name' or 'name:step_or_epoch'."""

    def __init__(self):
        super().__init__()
        self.events = []


def _recording_hook(name):
    def hook(self, *args):
        first = args[0] if args else None
        self.events.append(name if first is None or isinstance(first, dict)
                           else '%s:%d' % (name, first))
    return hook


for _name in ('train_begin', 'train_end', 'eval_begin', 'eval_end', 'predict_begin',
              'predict_end', 'epoch_begin', 'epoch_end', 'train_batch_begin',
              'train_batch_end', 'eval_batch_begin', 'eval_batch_end',
              'predict_batch_begin', 'predict_batch_end'):
    setattr(Recorder, 'on_' + _name, _recording_hook(_name))


# ---- fit / evaluate / predict ----------------------------------------------

def test_fit_learns_and_evaluate_returns_paddle_dict():
    paddle.seed(0)
    model = make_model()
    before = model.evaluate(dataset(seed=1), batch_size=32, verbose=0)
    model.fit(dataset(), batch_size=16, epochs=8, verbose=0)
    after = model.evaluate(dataset(seed=1), batch_size=32, verbose=0)
    assert set(after) == {'loss', 'acc'}
    assert isinstance(after['loss'], list) and len(after['loss']) == 1
    assert after['loss'][0] < before['loss'][0] * 0.6
    assert after['acc'] > 0.9


def test_evaluate_loss_is_the_last_batchs_and_acc_matches_predict():
    paddle.seed(1)
    model = make_model()
    model.fit(dataset(), batch_size=16, epochs=2, verbose=0)
    x, y = make_data(50, seed=5)
    res = model.evaluate(paddle.io.TensorDataset([x, y]), batch_size=16, verbose=0)
    logits = model.predict_batch([x])[0].astype('float64')
    logp = logits - logits.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    # Paddle's evaluate reports the last batch's loss (samples 48-49), not the mean
    last_batch_loss = -logp[np.arange(48, 50), y[48:, 0]].mean()
    assert res['loss'][0] == pytest.approx(last_batch_loss, rel=1e-5)
    assert res['loss'][0] != pytest.approx(-logp[np.arange(50), y[:, 0]].mean(), rel=1e-3)
    assert type(res['loss']) is list and type(res['loss'][0]) is float
    assert res['acc'] == pytest.approx(np.mean(logits.argmax(1) == y[:, 0]))
    # num_samples: only the first 20 samples
    part = model.evaluate(paddle.io.TensorDataset([x, y]), batch_size=16, verbose=0,
                          num_samples=20)
    assert part['acc'] == pytest.approx(np.mean(logits[:20].argmax(1) == y[:20, 0]))


def test_fit_is_deterministic_with_seed():
    def run():
        paddle.seed(123)
        model = make_model()
        rec = []

        class Losses(Callback):
            def on_train_batch_end(self, step, logs=None):
                rec.append(logs['loss'][0])
        model.fit(dataset(), batch_size=8, epochs=2, verbose=0, callbacks=[Losses()])
        return rec, [p.numpy() for p in model.parameters()]
    l1, p1 = run()
    l2, p2 = run()
    assert l1 == l2 and len(l1) == 24
    for a, b in zip(p1, p2):
        np.testing.assert_array_equal(a, b)


def test_fit_accepts_dataloader_and_plain_iterables():
    paddle.seed(2)
    x, y = make_data(64)
    model = make_model()
    loader = paddle.io.DataLoader(paddle.io.TensorDataset([x, y]), batch_size=16, shuffle=True)
    model.fit(loader, epochs=2, verbose=0)
    # a list of (inputs, labels) batches of numpy arrays, with inputs as a nested list
    batches = [([x[i:i + 16]], [y[i:i + 16]]) for i in range(0, 64, 16)]
    model.fit(batches, batches, epochs=3, verbose=0)
    res = model.evaluate(batches, verbose=0)
    assert res['acc'] > 0.8


def test_fit_on_iterable_dataset_with_workers(capsys):
    x, y = make_data(64)

    class Stream(paddle.io.IterableDataset):
        def __iter__(self):
            info = paddle.io.get_worker_info()       # each worker streams its own shard
            start, stride = (0, 1) if info is None else (info.id, info.num_workers)
            for i in range(start, len(x), stride):
                yield x[i], y[i]

    paddle.seed(23)
    model = make_model()
    model.fit(Stream(), batch_size=16, epochs=2, verbose=1, num_workers=2)
    out = capsys.readouterr().out
    # unknown length: no total in the counter, the line is ended at the epoch's end
    assert re.search(r'^step 4 - loss: .*/step$', out, re.M), out     # Paddle's line: no throughput
    res = model.evaluate(paddle.io.TensorDataset([x, y]), batch_size=16, verbose=0,
                         num_workers=2)
    assert res['acc'] > 0.6
    with pytest.raises(TypeError, match='Callback'):
        model.fit(Stream(), batch_size=16, verbose=0, callbacks=[object()])


def test_predict_outputs_and_stacking():
    paddle.seed(3)
    model = make_model()
    x, y = make_data(40)
    out = model.predict(paddle.io.TensorDataset([x, y]), batch_size=16, verbose=0)
    assert len(out) == 1 and [o.shape for o in out[0]] == [(16, 2), (16, 2), (8, 2)]
    assert type(out) is list and type(out[0]) is tuple     # Paddle's types
    stacked = model.predict(paddle.io.TensorDataset([x]), batch_size=16, verbose=0,
                            stack_outputs=True)
    direct = model.network(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(stacked[0], direct, rtol=1e-6)


def test_multiple_inputs_and_outputs():
    class TwoHeads(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 2)
            self.b = nn.Linear(2, 2)

        def forward(self, x1, x2):
            h = self.a(x1) + self.b(x2)
            return h, h * 2

    paddle.seed(4)
    net = TwoHeads()
    model = paddle.Model(net)
    assert [s.name for s in model._inputs] == ['x1', 'x2']

    def loss(out1, out2, label):
        return paddle.nn.functional.cross_entropy(out1, label)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), loss,
                  paddle.metric.Accuracy())
    rng = np.random.default_rng(0)
    x1 = rng.normal(size=(8, 3)).astype('float32')
    x2 = rng.normal(size=(8, 2)).astype('float32')
    y = rng.integers(0, 2, (8, 1))
    losses, metrics = model.train_batch([x1, x2], [y])
    assert len(losses) == 1 and np.ndim(losses[0]) == 0 and len(metrics) == 1
    outs = model.predict_batch([x1, x2])
    assert len(outs) == 2
    np.testing.assert_allclose(outs[1], 2 * outs[0], rtol=1e-6)


def test_batch_apis():
    paddle.seed(5)
    model = make_model(metrics=False, opt='sgd', lr=0.1)
    x, y = make_data(16)
    w0 = model.network[0].weight.numpy().copy()
    losses = model.train_batch([x], [y])
    assert isinstance(losses, list) and len(losses) == 1
    assert not np.allclose(model.network[0].weight.numpy(), w0)
    # update=False: gradients only, weights unchanged
    w1 = model.network[0].weight.numpy().copy()
    model.train_batch([x], [y], update=False)
    np.testing.assert_array_equal(model.network[0].weight.numpy(), w1)
    assert model.network[0].weight.grad is not None
    ev = model.eval_batch([x], [y])
    assert isinstance(ev, list) and np.ndim(ev[0]) == 0
    assert model.network[0].weight.grad is not None   # eval does not touch gradients


def test_gradient_accumulation_equals_one_step_on_summed_grads():
    x, y = make_data(32)
    paddle.seed(6)
    model = make_model(opt='sgd', lr=0.1, metrics=False)
    paddle.seed(6)
    ref = make_net()
    ref.set_state_dict(model.network.state_dict())
    batches = [([x[i:i + 8]], [y[i:i + 8]]) for i in range(0, 32, 8)]
    model.fit(batches, epochs=1, verbose=0, accumulate_grad_batches=2, shuffle=False)
    opt = paddle.optimizer.SGD(0.1, parameters=ref.parameters())
    for i in range(0, 32, 16):
        for j in (i, i + 8):
            loss = paddle.nn.functional.cross_entropy(ref(paddle.to_tensor(x[j:j + 8])),
                                                      paddle.to_tensor(y[j:j + 8]))
            loss.backward()
        opt.step()
        opt.clear_grad()
    for a, b in zip(model.parameters(), ref.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_num_iters_stops_training():
    paddle.seed(7)
    model = make_model()
    rec = Recorder()
    model.fit(dataset(64), batch_size=16, epochs=10, num_iters=6, verbose=0, callbacks=[rec])
    assert rec.events.count('train_batch_end:0') == 2      # two epochs started
    assert sum(e.startswith('train_batch_end') for e in rec.events) == 6
    assert rec.events[-1] == 'train_end'


def test_prepare_and_batch_errors():
    model = paddle.Model(make_net())
    with pytest.raises(TypeError, match='Metric'):
        model.prepare(metrics=['acc'])
    with pytest.raises(TypeError, match='loss'):
        model.prepare(loss=3)
    with pytest.raises(NotImplementedError, match='mixed precision'):
        model.prepare(amp_configs='O1')
    model.prepare(amp_configs={'level': 'O0'})
    with pytest.raises(RuntimeError, match='prepare'):
        model.train_batch([np.zeros((2, 4), 'float32')], [np.zeros((2, 1), 'int64')])
    with pytest.raises(TypeError, match='Layer'):
        paddle.Model(lambda x: x)
    with pytest.raises(ValueError, match='train_data'):
        model.fit(None)


def test_to_static_network_trains_through_model():
    paddle.seed(8)
    net = paddle.jit.to_static(make_net())
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(0.05, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    before = model.evaluate(dataset(), batch_size=32, verbose=0)['loss'][0]
    model.fit(dataset(), batch_size=16, epochs=4, verbose=0)
    after = model.evaluate(dataset(), batch_size=32, verbose=0)['loss'][0]
    assert after < before * 0.7


# ---- callbacks ---------------------------------------------------------------

def test_callbacks_fire_in_paddle_order():
    paddle.seed(9)
    model = make_model()
    rec = Recorder()
    model.fit(dataset(32), dataset(16), batch_size=16, epochs=2, verbose=0, callbacks=[rec])
    epoch = lambda e: (['epoch_begin:%d' % e, 'train_batch_begin:0', 'train_batch_end:0',  # noqa
                        'train_batch_begin:1', 'train_batch_end:1', 'epoch_end:%d' % e,
                        'eval_begin', 'eval_batch_begin:0', 'eval_batch_end:0', 'eval_end'])
    assert rec.events == ['train_begin'] + epoch(0) + epoch(1) + ['train_end']
    rec.events.clear()
    model.evaluate(dataset(16), batch_size=8, verbose=0, callbacks=[rec])
    assert rec.events == ['eval_begin', 'eval_batch_begin:0', 'eval_batch_end:0',
                          'eval_batch_begin:1', 'eval_batch_end:1', 'eval_end']
    rec.events.clear()
    model.predict(dataset(16), batch_size=16, verbose=0, callbacks=[rec])
    assert rec.events == ['predict_begin', 'predict_batch_begin:0', 'predict_batch_end:0',
                          'predict_end']


def test_eval_freq_and_logs_content():
    paddle.seed(10)
    model = make_model()
    seen = {}

    class Logs(Callback):
        def on_train_batch_end(self, step, logs=None):
            seen['train'] = dict(logs)

        def on_eval_end(self, logs=None):
            seen.setdefault('evals', 0)
            seen['evals'] += 1

        def on_train_begin(self, logs=None):
            seen['params'] = dict(self.params)
    model.fit(dataset(32), dataset(16), batch_size=16, epochs=4, eval_freq=2, verbose=0,
              callbacks=[Logs()])
    assert seen['evals'] == 2            # epochs 0 and 2
    assert set(seen['train']) == {'loss', 'acc', 'step', 'batch_size'}
    assert seen['train']['batch_size'] == 16 and seen['train']['step'] == 1
    assert seen['params']['epochs'] == 4 and seen['params']['steps'] == 2
    assert seen['params']['metrics'] == ['loss', 'acc']


def test_early_stopping_stops_when_monitor_stalls(tmp_path):
    paddle.seed(11)
    model = make_model(lr=0.0, opt='sgd')       # nothing changes: no improvement after epoch 0
    rec = Recorder()
    stop = EarlyStopping(monitor='loss', patience=1, verbose=0)
    model.fit(dataset(32), dataset(16), batch_size=16, epochs=10, verbose=0,
              callbacks=[rec, stop], save_dir=str(tmp_path))
    # eval 0 sets the best, evals 1 and 2 do not improve, 2 > patience -> stop after epoch 2
    assert rec.events.count('eval_end') == 3
    assert 'epoch_begin:3' not in rec.events
    assert model.stop_training
    assert os.path.exists(os.path.join(str(tmp_path), 'best_model.pdparams'))


def test_early_stopping_keeps_going_while_improving_and_uses_mode():
    paddle.seed(12)
    model = make_model(lr=0.05)
    stop = EarlyStopping(monitor='acc', mode='auto', patience=100, verbose=0,
                         save_best_model=False)
    assert stop.monitor_op is np.greater
    rec = Recorder()
    model.fit(dataset(32), dataset(16), batch_size=16, epochs=3, verbose=0,
              callbacks=[rec, stop])
    assert rec.events.count('eval_end') == 3 and not model.stop_training
    base = EarlyStopping(monitor='loss', baseline=-1.0, patience=0, verbose=0)
    model.fit(dataset(32), dataset(16), batch_size=16, epochs=5, verbose=0, callbacks=[base])
    assert base.stopped_epoch == 1       # the unreachable baseline is never beaten


def test_model_checkpoint_writes_files(tmp_path, capsys):
    paddle.seed(13)
    model = make_model()
    d = str(tmp_path / 'ckpt')
    model.fit(dataset(32), batch_size=16, epochs=3, verbose=0, save_dir=d, save_freq=2)
    files = sorted(os.listdir(d))
    assert files == ['0.pdopt', '0.pdparams', '2.pdopt', '2.pdparams', 'final.pdopt',
                     'final.pdparams']
    assert 'save checkpoint at' in capsys.readouterr().out
    state = paddle.load(os.path.join(d, 'final.pdparams'))
    for k, v in model.network.state_dict().items():
        np.testing.assert_array_equal(state[k].numpy(), v.numpy())
    # an explicit ModelCheckpoint replaces the default one
    d2 = str(tmp_path / 'other')
    model.fit(dataset(32), batch_size=16, epochs=1, verbose=0,
              callbacks=[ModelCheckpoint(save_freq=1, save_dir=d2)])
    assert sorted(os.listdir(d2)) == ['0.pdopt', '0.pdparams', 'final.pdopt', 'final.pdparams']


def test_lr_scheduler_callback_steps_by_batch_or_epoch():
    paddle.seed(14)
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1000)
    model = paddle.Model(make_net())
    model.prepare(paddle.optimizer.SGD(sched, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    model.fit(dataset(48), batch_size=16, epochs=2, verbose=0)   # default: by step
    assert sched.last_epoch == 6
    model.fit(dataset(48), batch_size=16, epochs=2, verbose=0,
              callbacks=[LRScheduler(by_step=False, by_epoch=True)])
    assert sched.last_epoch == 8
    with pytest.raises(ValueError, match='exclusive'):
        LRScheduler(by_step=True, by_epoch=True)
    # ReduceOnPlateau needs a metric to step: the callback leaves it alone
    plateau = paddle.optimizer.lr.ReduceOnPlateau(0.1)
    model.prepare(paddle.optimizer.SGD(plateau, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    model.fit(dataset(32), batch_size=16, epochs=1, verbose=0)
    assert plateau.last_epoch == 0


def test_reduce_lr_on_plateau():
    paddle.seed(15)
    model = paddle.Model(make_net())
    model.prepare(paddle.optimizer.SGD(1e-9, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    cb = paddle.callbacks.ReduceLROnPlateau(patience=1, factor=0.5, verbose=0, min_delta=1e-3)
    model.fit(dataset(32), dataset(16), batch_size=16, epochs=3, verbose=0, callbacks=[cb])
    # eval 0 sets best; eval 1 waits 1 >= patience -> halve; eval 2 -> halve again
    assert model._optimizer.get_lr() == pytest.approx(1e-9 / 4)


# ---- progress bar ----------------------------------------------------------

STEP_TIME = re.compile(r'\d+(\.\d+)?(us|ms|s)/step')


def test_progress_bar_lines_verbose_2(capsys):
    paddle.seed(16)
    model = make_model()
    model.fit(dataset(64), dataset(32), batch_size=16, epochs=2, log_freq=2, verbose=2)
    out = capsys.readouterr().out
    assert 'Epoch 1/2' in out and 'Epoch 2/2' in out
    lines = [l for l in out.splitlines() if l.startswith('step')]
    train_lines = [l for l in lines if l.startswith('step 2/4') or l.startswith('step 4/4')]
    assert len(train_lines) == 4          # log_freq=2 and the epoch end, two epochs
    for line in train_lines:
        assert re.search(r'loss: \d+\.\d{4}', line), line
        assert re.search(r'acc: \d\.\d{4}', line), line
        assert STEP_TIME.search(line), line
        assert line.endswith('/step') and 'samples/s' not in line, line     # as Paddle 3.3.1
    assert 'Eval begin...' in out and 'Eval samples: 32' in out


def test_progress_bar_verbose_0_and_1(capsys):
    paddle.seed(17)
    model = make_model()
    model.fit(dataset(64), batch_size=16, epochs=1, verbose=0)
    model.evaluate(dataset(32), batch_size=16, verbose=0)
    model.predict(dataset(32), batch_size=16, verbose=0)
    assert capsys.readouterr().out == ''
    model.fit(dataset(64), batch_size=16, epochs=1, verbose=1, log_freq=1)
    out = capsys.readouterr().out
    bar_lines = [l for l in out.splitlines() if l.startswith('step')]
    # not a terminal: the bar is written once, when it completes
    assert len(bar_lines) == 1
    assert re.search(r'step 4/4 \[=+\] - loss: .* - acc: .*/step$', bar_lines[0])


def test_progress_bar_unit():
    import io
    buf = io.StringIO()
    bar = ProgressBar(num=None, verbose=1, file=buf)
    bar.update(1, {'loss': [0.5, 2e-5]}, samples=10)
    assert buf.getvalue() == ''            # pending until finish() on a non-terminal
    bar.finish()
    assert buf.getvalue().startswith('step 1 - loss: 0.5000 2.0000e-05 - ')
    buf2 = io.StringIO()
    bar2 = ProgressBar(num=3, verbose=2, file=buf2, name='batch')
    bar2.update(2, [('acc', 0.25), ('note', 'x')])
    assert buf2.getvalue().startswith('batch 2/3 - acc: 0.2500 - note: x - ')
    with pytest.raises(ValueError, match='num'):
        ProgressBar(num=-1)


def test_progbar_logger_verbose_3_reports_costs(capsys):
    paddle.seed(18)
    model = make_model()
    model.fit(dataset(32), batch_size=16, epochs=1, callbacks=[ProgBarLogger(1, verbose=3)])
    out = capsys.readouterr().out
    assert 'avg_reader_cost' in out and 'avg_batch_cost' in out and 'samples/sec' in out


# ---- save / load -------------------------------------------------------------

def test_save_load_training_round_trip(tmp_path):
    paddle.seed(19)
    model = make_model()
    model.fit(dataset(64), batch_size=16, epochs=2, verbose=0)
    path = str(tmp_path / 'sub' / 'm')
    model.save(path)
    assert os.path.exists(path + '.pdparams') and os.path.exists(path + '.pdopt')

    paddle.seed(99)
    other = make_model()
    other.load(path + '.pdparams')          # the postfix is accepted
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # the optimizer state came back too: one more identical step gives identical weights
    x, y = make_data(16, seed=3)
    model.train_batch([x], [y])
    other.train_batch([x], [y])
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)

    fresh = make_model()
    fresh.load(path, reset_optimizer=True)
    assert fresh._optimizer.state_dict() == {}


def test_load_mismatch(tmp_path):
    paddle.seed(20)
    model = make_model()
    path = str(tmp_path / 'm')
    model.save(path)
    net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    wrong = paddle.Model(net)
    with pytest.raises(ValueError, match=r"'2.weight' has shape \[16, 2\]"):
        wrong.load(path)
    with pytest.warns(UserWarning, match='skip loading'):
        wrong.load(path, skip_mismatch=True)
    np.testing.assert_array_equal(net[0].weight.numpy(), model.network[0].weight.numpy())
    with pytest.raises(FileNotFoundError, match='pdparams'):
        wrong.load(str(tmp_path / 'missing'))
    with pytest.raises(ValueError, match='prefix'):
        model.save(str(tmp_path) + os.sep)


def test_save_inference_model_round_trip(tmp_path):
    paddle.seed(21)
    model = make_model(inputs=[InputSpec([None, 4], 'float32', 'x')])
    model.fit(dataset(32), batch_size=16, epochs=1, verbose=0)
    path = str(tmp_path / 'infer')
    model.save(path, training=False)
    assert model.network.training           # saving for inference restores the mode
    assert os.path.exists(path + '.pdmodel') and os.path.exists(path + '.pdiparams')
    loaded = paddle.jit.load(path)
    x, _ = make_data(10, seed=4)
    expected = model.predict_batch([x])[0]
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), expected, rtol=1e-5,
                               atol=1e-6)


def test_save_inference_infers_shapes_from_data(tmp_path):
    paddle.seed(22)
    model = make_model()
    with pytest.raises(RuntimeError, match='input shapes'):
        model.save(str(tmp_path / 'a'), training=False)
    model.fit(dataset(32), batch_size=16, epochs=1, verbose=0)
    with pytest.warns(UserWarning, match='last batch'):
        model.save(str(tmp_path / 'b'), training=False)
    loaded = paddle.jit.load(str(tmp_path / 'b'))
    x, _ = make_data(5, seed=4)    # another batch size than in training
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                               model.predict_batch([x])[0], rtol=1e-5, atol=1e-6)


# ---- summary -----------------------------------------------------------------

def test_summary_small_net_hand_count(capsys):
    with paddle.utils.unique_name.guard():       # rows are numbered by full_name(), as Paddle
        net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    info = paddle.summary(net, (2, 4))
    # (4*8 + 8) + (8*3 + 3)
    assert info == {'total_params': 67, 'trainable_params': 67}
    out = capsys.readouterr().out
    assert 'Linear-1' in out and 'Linear-2' in out and 'ReLU-1' in out
    assert '[2, 8]' in out and '[2, 3]' in out and 'Total params: 67' in out


def test_summary_nested_frozen_and_multiple_inputs(capsys):
    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.Linear(3, 5), nn.Sequential(nn.Tanh(), nn.Linear(5, 2)))
            self.scale = self.create_parameter([2])

        def forward(self, x, y):
            return self.inner(x) * self.scale + y

    with paddle.utils.unique_name.guard():
        net = Block()
    net.inner[0].weight.stop_gradient = True            # 15 frozen
    info = paddle.summary(net, [(None, 3), (1, 2)])
    # Linear(3,5): 15 + 5, Linear(5,2): 10 + 2, scale: 2
    assert info == {'total_params': 34, 'trainable_params': 19}
    out = capsys.readouterr().out
    assert 'Block-1' in out and 'Non-trainable params: 15' in out
    assert 'Sequential' not in out          # containers get no row


def test_summary_lenet_and_model_summary(capsys):
    lenet = paddle.vision.models.LeNet()
    hand = (1 * 6 * 3 * 3 + 6) + (6 * 16 * 5 * 5 + 16) + (400 * 120 + 120) + \
        (120 * 84 + 84) + (84 * 10 + 10)
    assert paddle.summary(lenet, (1, 1, 28, 28)) == {'total_params': hand,
                                                   'trainable_params': hand}
    out = capsys.readouterr().out
    assert '[1, 16, 5, 5]' in out and 'Total params: 61,610' in out
    model = paddle.Model(lenet, inputs=[InputSpec([None, 1, 28, 28], 'float32', 'image')])
    assert model.summary() == {'total_params': 61610, 'trainable_params': 61610}
    assert paddle.Model(lenet).summary((1, 1, 28, 28))['total_params'] == 61610
    with pytest.raises(ValueError, match='input_size'):
        paddle.Model(lenet).summary()
    # a real input instead of a size, and the layer's training mode is restored
    lenet.train()
    assert paddle.summary(lenet, input=paddle.rand([2, 1, 28, 28]))['total_params'] == 61610
    assert lenet.training


def test_summary_errors():
    net = nn.Linear(2, 2)
    with pytest.raises(ValueError, match='input_size or input'):
        paddle.summary(net)
    with pytest.raises(ValueError, match='batch'):
        paddle.summary(net, (None, None, 2))
    with pytest.raises(TypeError, match='Layer'):
        paddle.summary(lambda x: x, (1, 2))


# ---- static graph mode -----------------------------------------------------------

@pytest.fixture
def static_mode():
    """Static mode with fresh default programs and scope, undone afterwards."""
    paddle.enable_static()
    try:
        with paddle.static.scope_guard(paddle.static.Scope()), \
                paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            yield
    finally:
        paddle.disable_static()


def static_model(lr=0.05):
    model = paddle.Model(make_net(), [InputSpec([None, 4], 'float32', 'x')],
                         [InputSpec([None, 1], 'int64', 'label')])
    # parameters=None: in static mode the optimizer updates the program's parameters
    model.prepare(paddle.optimizer.Adam(lr), nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model


def test_static_mode_fit_evaluate_predict(static_mode, capsys):
    paddle.seed(30)
    model = static_model()
    before = model.evaluate(dataset(seed=1), batch_size=32, verbose=0)
    model.fit(dataset(), dataset(seed=1), batch_size=16, epochs=6, verbose=2, log_freq=3)
    after = model.evaluate(dataset(seed=1), batch_size=32, verbose=0)
    assert after['loss'][0] < 0.6 * before['loss'][0] and after['acc'] > 0.9
    out = capsys.readouterr().out
    assert 'Epoch 6/6' in out and re.search(r'^step 3/\d+ - loss: .*/step$', out, re.M)
    x, y = make_data(40, seed=2)
    pred = model.predict(paddle.io.TensorDataset([x, y]), batch_size=16, verbose=0,
                         stack_outputs=True)[0]
    assert pred.shape == (40, 2)
    assert model.evaluate(paddle.io.TensorDataset([x, y]), batch_size=40, verbose=0)['acc'] == \
        pytest.approx(np.mean(pred.argmax(1) == y[:, 0]))


def test_static_mode_save_load_and_inference(static_mode, tmp_path):
    paddle.seed(31)
    model = static_model()
    model.fit(dataset(64), batch_size=16, epochs=2, verbose=0)
    path = str(tmp_path / 'm')
    model.save(path)
    model.save(str(tmp_path / 'infer'), training=False)
    other = static_model()
    other.load(path)
    x, y = make_data(16, seed=3)
    expected = model.predict_batch([x])[0]        # what the inference model must give
    np.testing.assert_array_equal(other.predict_batch([x])[0], expected)
    # optimizer state restored: one more step agrees
    model.train_batch([x], [y])
    other.train_batch([x], [y])
    np.testing.assert_allclose(other.predict_batch([x])[0], model.predict_batch([x])[0],
                               rtol=1e-5, atol=1e-6)
    paddle.disable_static()
    try:
        loaded = paddle.jit.load(str(tmp_path / 'infer'))
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), expected, rtol=1e-5,
                                   atol=1e-6)
    finally:
        paddle.enable_static()


def test_static_mode_requirements_and_summary(static_mode, capsys):
    with pytest.raises(ValueError, match='inputs='):
        paddle.Model(make_net()).prepare(paddle.optimizer.SGD(0.1), nn.CrossEntropyLoss())
    with pytest.raises(ValueError, match='labels='):
        paddle.Model(make_net(), [InputSpec([None, 4], 'float32', 'x')]).prepare(
            paddle.optimizer.SGD(0.1), nn.CrossEntropyLoss())
    model = static_model()
    x, y = make_data(8)
    with pytest.raises(NotImplementedError, match='dynamic graph mode'):
        model.train_batch([x], [y], update=False)
    with pytest.raises(NotImplementedError, match='dynamic graph mode'):
        model.fit(dataset(16), batch_size=8, verbose=0, accumulate_grad_batches=2)
    assert model.summary() == {'total_params': 114, 'trainable_params': 114}   # 4*16+16 + 16*2+2
    assert '[1, 16]' in capsys.readouterr().out
