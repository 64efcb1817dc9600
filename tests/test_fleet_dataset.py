"""paddle.distributed.InMemoryDataset / QueueDataset read MultiSlot text files
through their pipe command into Executor.train_from_dataset's batches."""
import numpy as np
import pytest

import framework as paddle


@pytest.fixture
def static_program():
    paddle.enable_static()
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data('x', [-1, 2], 'float32')
        y = paddle.static.data('y', [-1, 1], 'int64')
        w = paddle.static.create_parameter(
            [2, 2], 'float32', default_initializer=paddle.nn.initializer.Constant(0.1))
        loss = paddle.nn.functional.cross_entropy(paddle.matmul(x, w), y).mean()
        paddle.optimizer.SGD(0.1).minimize(loss)
    yield main, start, x, y, w, loss
    paddle.disable_static()


ROWS_A = [([0.5, 1.5], 1), ([-1.0, 2.0], 0), ([3.0, 0.5], 1)]
ROWS_B = [([1.0, 1.0], 0), ([0.0, -2.0], 1)]


def _write(path, rows):
    path.write_text(''.join('2 %r %r 1 %d\n' % (a, b, c) for (a, b), c in rows))
    return str(path)


def _sgd_reference(batches):
    """The same training in numpy: softmax cross-entropy, SGD 0.1."""
    w = np.full((2, 2), 0.1)
    losses = []
    for xs, ys in batches:
        xs, ys = np.array(xs), np.array(ys)
        z = xs @ w
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        losses.append(-np.log(p[np.arange(len(ys)), ys]).mean())
        g = p.copy()
        g[np.arange(len(ys)), ys] -= 1
        w -= 0.1 * xs.T @ g / len(ys)
    return losses, w


def _fetch_losses(capsys):
    return [float(line.split(': ')[1].strip('[]')) for line in capsys.readouterr().out.split('\n')
            if line.startswith('loss: ')]


def test_in_memory_dataset_trains_on_every_instance_in_batches(static_program, tmp_path, capsys):
    main, start, x, y, w, loss = static_program
    files = [_write(tmp_path / 'a.txt', ROWS_A), _write(tmp_path / 'b.txt', ROWS_B)]
    dataset = paddle.distributed.InMemoryDataset()
    dataset.init(batch_size=2, thread_num=1, pipe_command='cat', use_var=[x, y])
    dataset.set_filelist(files)
    dataset.load_into_memory()
    assert dataset.get_memory_data_size() == 5 == dataset.get_shuffle_data_size()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    exe.train_from_dataset(main, dataset, fetch_list=[loss], fetch_info=['loss'], print_period=1)
    rows = ROWS_A + ROWS_B
    batches = [([r[0] for r in rows[i:i + 2]], [r[1] for r in rows[i:i + 2]])
               for i in (0, 2, 4)]
    losses, w_ref = _sgd_reference(batches)
    np.testing.assert_allclose(_fetch_losses(capsys), losses, rtol=1e-5)
    np.testing.assert_allclose(np.array(paddle.static.global_scope().find_var(w.name)
                                        .get_tensor()), w_ref, rtol=1e-5)
    dataset.release_memory()
    with pytest.raises(RuntimeError, match='call load_into_memory'):
        dataset.get_memory_data_size()


def test_queue_dataset_streams_through_the_pipe_command(static_program, tmp_path, capsys):
    main, start, x, y, w, loss = static_program
    path = _write(tmp_path / 'a.txt', ROWS_A)
    dataset = paddle.distributed.QueueDataset()
    # the pipe command sees the file on stdin: keep the first two lines only
    dataset.init(batch_size=3, use_var=[x, y], pipe_command='head -n 2')
    dataset.set_filelist([path])
    exe = paddle.static.Executor()
    exe.run(start)
    exe.train_from_dataset(main, dataset, fetch_list=[loss], fetch_info=['loss'], print_period=1)
    losses, _ = _sgd_reference([([r[0] for r in ROWS_A[:2]], [r[1] for r in ROWS_A[:2]])])
    np.testing.assert_allclose(_fetch_losses(capsys), losses, rtol=1e-5)
    with pytest.raises(NotImplementedError, match='QueueDataset does not support local shuffle'):
        dataset.local_shuffle()


def test_shuffles_are_seeded_permutations_of_the_instances(static_program, tmp_path):
    _, _, x, y, _, _ = static_program
    rows = [([float(i), float(-i)], i % 2) for i in range(20)]
    path = _write(tmp_path / 'many.txt', rows)

    def shuffled():
        paddle.seed(5)
        d = paddle.distributed.InMemoryDataset()
        d.init(batch_size=20, use_var=[x, y])
        d.set_filelist([path])
        d.load_into_memory(is_shuffle=True)
        return next(d._batches())
    first, again = shuffled(), shuffled()
    np.testing.assert_array_equal(first['x'], again['x'])
    assert sorted(first['x'][:, 0].tolist()) == [float(i) for i in range(20)]
    assert first['x'][:, 0].tolist() != [float(i) for i in range(20)]
    np.testing.assert_array_equal(first['x'][:, 0], -first['x'][:, 1])      # rows stay whole
    assert first['y'].shape == (20, 1) and first['y'].dtype == np.int64


def test_bad_files_and_settings_are_clear_errors(static_program, tmp_path):
    _, start, x, y, _, _ = static_program
    bad = tmp_path / 'bad.txt'
    bad.write_text('2 0.5 1.5 1 1\n3 0.5 1.5\n')
    d = paddle.distributed.InMemoryDataset()
    d.init(batch_size=2, use_var=[x, y])
    d.set_filelist([str(bad)])
    with pytest.raises(ValueError, match=r"bad.txt' line 2, slot 'x': 3 values announced, 2 given"):
        d.load_into_memory()
    bad.write_text('3 0.5 1.5 2.5 1 1\n')
    with pytest.raises(ValueError, match=r"slot 'x': 3 values, but the variable's shape"):
        d.load_into_memory()
    d.set_filelist([str(tmp_path / 'missing.txt')])
    with pytest.raises(RuntimeError, match="cannot read .*missing.txt"):
        d.load_into_memory()
    d.update_settings(pipe_command='exit 3')
    d.set_filelist([_write(tmp_path / 'ok.txt', ROWS_A)])
    with pytest.raises(RuntimeError, match=r"pipe_command 'exit 3' failed .*exit status 3"):
        d.load_into_memory()
    with pytest.raises(TypeError, match='unknown settings'):
        d.update_settings(no_such_setting=1)
    with pytest.raises(ValueError, match='only supports dtype=float32 and dtype=int64'):
        d.init(use_var=[paddle.static.data('h', [-1, 1], 'float16')])
    with pytest.raises(TypeError, match='list of file names'):
        d.set_filelist('a.txt')
    with pytest.raises(RuntimeError, match='dataset is need'):
        paddle.static.Executor().train_from_dataset(None, None)


def test_slots_shuffle_permutes_one_slot_and_extra_fields_or_sizes_are_refused(static_program,
                                                                               tmp_path):
    _, _, x, y, _, _ = static_program
    rows = [([float(i), float(i)], i % 2) for i in range(12)]
    d = paddle.distributed.InMemoryDataset()
    d.init(batch_size=12, use_var=[x, y])
    d.set_filelist([_write(tmp_path / 'rows.txt', rows)])
    d.load_into_memory()
    paddle.seed(3)
    d.slots_shuffle(['x'])
    batch = next(d._batches())
    assert batch['y'][:, 0].tolist() == [i % 2 for i in range(12)]           # kept in order
    assert sorted(batch['x'][:, 0].tolist()) == [float(i) for i in range(12)]
    assert batch['x'][:, 0].tolist() != [float(i) for i in range(12)]
    with pytest.raises(ValueError, match="slots_shuffle: 'z' is not a slot"):
        d.slots_shuffle(['z'])
    extra = tmp_path / 'extra.txt'
    extra.write_text('2 0.5 1.5 1 1 9\n')
    d.set_filelist([str(extra)])
    with pytest.raises(ValueError, match="line 1 has 1 fields after the 2 slots"):
        d.load_into_memory()
    with pytest.raises(ValueError, match='batch_size must be positive'):
        d.update_settings(batch_size=0)
