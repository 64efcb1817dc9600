"""paddle.onnx.export of recurrent text classifiers: embedding + nn.LSTM / nn.GRU
(two layers, bidirectional) + linear, run in onnxruntime on two batch sizes.

nn.LSTM / nn.GRU run one sequence op per layer and direction, lowered to ONNX
LSTM / GRU nodes, so the exported model takes any batch size and sequence
length; SimpleRNN and an LSTM with proj_size unroll the traced steps."""
import numpy as np
import pytest

import framework as paddle
from framework.static import InputSpec

onnx = pytest.importorskip('onnx', reason="ONNX export tests need the 'onnx' extra (onnx)")
ort = pytest.importorskip('onnxruntime',
                          reason="ONNX export tests need the 'onnx' extra (onnxruntime)")

VOCAB, SEQ = 40, 6


class TextClassifier(paddle.nn.Layer):
    def __init__(self, rnn, num_classes=3, padding_idx=None):
        super().__init__()
        self.emb = paddle.nn.Embedding(VOCAB, 8, padding_idx=padding_idx)
        self.rnn = rnn
        width = rnn.hidden_size * (2 if rnn.num_directions == 2 else 1)
        self.fc = paddle.nn.Linear(width, num_classes)

    def forward(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return self.fc(paddle.mean(out, axis=1))


def ids(batch, seed):
    return np.random.RandomState(seed).randint(0, VOCAB, (batch, SEQ)).astype('int64')


def export_checked(net, path, specs):
    """Export ``net``, check the model fully; (model, onnxruntime session)."""
    paddle.onnx.export(net, path, input_spec=specs)
    model = onnx.load(path + '.onnx')
    onnx.checker.check_model(model, full_check=True)
    return model, ort.InferenceSession(path + '.onnx', providers=['CPUExecutionProvider'])


def compare_with_ort(net, sess, x, lengths=None):
    """onnxruntime's output for ``x`` (and ``lengths``) against the net's."""
    inputs = [x] + ([np.array(lengths, 'int64')] if lengths is not None else [])
    got, = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), inputs)})
    want = net(*[paddle.to_tensor(a) for a in inputs]).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def export_and_compare(net, path, batches=(2, 5)):
    net.eval()
    model, sess = export_checked(net, path, [InputSpec([None, SEQ], 'int64', 'ids')])
    for seed, batch in enumerate(batches):
        x = ids(batch, seed)
        got, = sess.run(None, {sess.get_inputs()[0].name: x})
        want = net(paddle.to_tensor(x)).numpy()
        assert got.shape == want.shape == (batch, 3)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return model


def test_bidirectional_two_layer_lstm_classifier(tmp_path):
    paddle.seed(3)
    net = TextClassifier(paddle.nn.LSTM(8, 6, num_layers=2, direction='bidirect'))
    export_and_compare(net, str(tmp_path / 'lstm'))


def test_bidirectional_two_layer_gru_classifier(tmp_path):
    paddle.seed(4)
    net = TextClassifier(paddle.nn.GRU(8, 5, num_layers=2, direction='bidirect'))
    export_and_compare(net, str(tmp_path / 'gru'))


def test_lstm_with_padding_idx_embedding(tmp_path):
    paddle.seed(5)
    net = TextClassifier(paddle.nn.LSTM(8, 4), padding_idx=0)
    export_and_compare(net, str(tmp_path / 'pad'), batches=(1, 3))


class RNNOutputs(paddle.nn.Layer):
    def __init__(self, rnn, with_lengths=False):
        super().__init__()
        self.rnn, self.with_lengths = rnn, with_lengths

    def forward(self, x, lengths=None):
        out, _ = self.rnn(x, sequence_length=lengths) if self.with_lengths else self.rnn(x)
        return out


@pytest.mark.parametrize('make,time_major,with_lengths', [
    (lambda: paddle.nn.SimpleRNN(4, 5, num_layers=2, direction='bidirect'), False, False),
    (lambda: paddle.nn.LSTM(4, 5, proj_size=3), False, False),
    (lambda: paddle.nn.GRU(4, 5, time_major=True), True, False),
    (lambda: paddle.nn.LSTM(4, 5, direction='bidirect'), False, True),
], ids=['simple_rnn_bidirect', 'lstm_proj', 'gru_time_major', 'lstm_sequence_length'])
def test_rnn_variants(make, time_major, with_lengths, tmp_path):
    paddle.seed(6)
    net = RNNOutputs(make(), with_lengths)
    net.eval()
    specs = [InputSpec([SEQ, None, 4] if time_major else [None, SEQ, 4], 'float32', 'x')]
    if with_lengths:
        specs.append(InputSpec([None], 'int64', 'lengths'))
    _, sess = export_checked(net, str(tmp_path / 'rnn'), specs)
    for batch in (2, 3):
        rng = np.random.RandomState(batch)
        x = rng.randn(*((SEQ, batch, 4) if time_major else (batch, SEQ, 4))).astype('float32')
        compare_with_ort(net, sess, x, [SEQ, 3, 1][:batch] if with_lengths else None)


# ---- nn.LSTM / nn.GRU lower to ONNX LSTM / GRU: any sequence length ------------------

@pytest.mark.parametrize('make,time_major,with_lengths', [
    (lambda: paddle.nn.LSTM(4, 5, num_layers=2, direction='bidirect'), False, True),
    (lambda: paddle.nn.LSTM(4, 3), True, False),
    (lambda: paddle.nn.GRU(4, 5, num_layers=2, direction='bidirect'), False, True),
    (lambda: paddle.nn.GRU(4, 3, time_major=True), True, False),
], ids=['lstm_bidirect_lengths', 'lstm_time_major', 'gru_bidirect_lengths', 'gru_time_major'])
def test_rnn_exports_with_a_dynamic_sequence_length(make, time_major, with_lengths, tmp_path):
    paddle.seed(8)
    net = RNNOutputs(make(), with_lengths)
    net.eval()
    specs = [InputSpec([None, None, 4], 'float32', 'x')]
    if with_lengths:
        specs.append(InputSpec([None], 'int64', 'lengths'))
    model, sess = export_checked(net, str(tmp_path / 'rnn'), specs)
    kinds = [n.op_type for n in model.graph.node]
    assert kinds.count('LSTM' if isinstance(net.rnn, paddle.nn.LSTM) else 'GRU') == \
        net.rnn.num_layers * net.rnn.num_directions
    for steps, batch in ((3, 2), (9, 3)):
        rng = np.random.RandomState(steps)
        x = rng.randn(*((steps, batch, 4) if time_major else (batch, steps, 4))).astype('float32')
        compare_with_ort(net, sess, x, [steps, 2, 1][:batch] if with_lengths else None)
