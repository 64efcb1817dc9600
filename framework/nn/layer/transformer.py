"""Attention and Transformer layers (Paddle 2.x API): ``MultiHeadAttention``,
``TransformerEncoderLayer``/``TransformerEncoder``,
``TransformerDecoderLayer``/``TransformerDecoder`` and ``Transformer``.

Inputs are batch first, ``[batch, length, d_model]``. Attention masks
broadcast to ``[batch, num_heads, query_length, key_length]``: a bool (or
int) mask keeps the positions that are True (1) and blocks the others; a
float mask is added to the attention scores (``-inf`` blocks).

Post-norm (default) sub-layers compute ``norm(x + dropout(sublayer(x)))``;
with ``normalize_before=True`` they compute ``x + dropout(sublayer(norm(x)))``.

>>> import framework as paddle
>>> layer = paddle.nn.TransformerEncoderLayer(16, 2, 32)
>>> paddle.nn.TransformerEncoder(layer, 2)(paddle.rand([2, 5, 16])).shape
paddle.Size([2, 5, 16])
"""
import collections
import copy

import numpy as np

from ... import dtype as _dt
from ...ops.creation import full, triu
from ...ops.manipulation import cast, concat, reshape, transpose
from ...ops.math import matmul, scale
from ...param_attr import ParamAttr
from .. import functional as F
from .container import LayerList
from .layers import Layer
from .common import Dropout, Linear
from .norm import LayerNorm
from .rnn import _batch_full

__all__ = ['MultiHeadAttention', 'TransformerEncoderLayer', 'TransformerEncoder',
           'TransformerDecoderLayer', 'TransformerDecoder', 'Transformer']


def _convert_param_attr_to_list(param_attr, n):
    """``n`` parameter attributes: a list/tuple is taken item by item; one
    attribute is repeated (a named one gets ``_0``, ``_1``... suffixes so the
    copies do not share a name)."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise ValueError("expected %d parameter attributes in the list, got %d"
                             % (n, len(param_attr)))
        return [ParamAttr._to_attr(a) for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(param_attr) for _ in range(n)]
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        a = copy.copy(attr)
        if attr.name:
            a.name = '%s_%d' % (attr.name, i)
        out.append(a)
    return out


def _convert_attention_mask(attn_mask, dtype):
    """A bool/int mask (True/1 = attend) becomes an additive float mask
    (0 where kept, -1e9 where blocked); a float mask is cast to ``dtype``."""
    if attn_mask is None:
        return None
    mask_dtype = _dt.convert_dtype(attn_mask.dtype)
    target = _dt.convert_dtype(dtype)
    if mask_dtype == target:
        return attn_mask
    if mask_dtype.kind in 'biu':
        return (cast(attn_mask, str(target)) - 1.0) * 1e9
    return cast(attn_mask, str(target))


def _check_last_dim(x, size, what, api):
    shape = list(x.shape)
    if len(shape) != 3 or shape[-1] not in (size, -1):
        raise ValueError("%s: %s must have shape [batch_size, length, %d], got %s"
                         % (api, what, size, shape))


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads with separate
    query/key/value/output projections (``q_proj``, ``k_proj``, ``v_proj``,
    ``out_proj``).

    ``forward(query, key=None, value=None, attn_mask=None, cache=None)``:
    key and value default to query. Returns the output
    ``[batch, query_length, embed_dim]``, plus the attention weights
    ``[batch, num_heads, query_length, key_length]`` when ``need_weights``,
    plus the updated cache when one is given (a tuple then).

    Caches (inference): ``Cache(k, v)`` holds the projected keys/values of
    earlier steps and grows by the new ones (decoder self-attention);
    ``StaticCache(k, v)`` holds precomputed keys/values used instead of
    ``key``/``value`` (encoder-decoder attention). Build them with
    ``gen_cache``.

    >>> import framework as paddle
    >>> mha = paddle.nn.MultiHeadAttention(16, 4)
    >>> mha(paddle.rand([2, 5, 16])).shape
    paddle.Size([2, 5, 16])
    """

    Cache = collections.namedtuple('Cache', ['k', 'v'])
    StaticCache = collections.namedtuple('StaticCache', ['k', 'v'])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        embed_dim, num_heads = int(embed_dim), int(num_heads)
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError("MultiHeadAttention: embed_dim and num_heads must be positive, "
                             "got %d and %d" % (embed_dim, num_heads))
        if embed_dim % num_heads:
            raise ValueError("MultiHeadAttention: embed_dim (%d) must be divisible by "
                             "num_heads (%d)" % (embed_dim, num_heads))
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise ValueError("MultiHeadAttention: dropout must be a number in [0, 1], got %r"
                             % (dropout,))
        self.embed_dim = embed_dim
        self.kdim = int(kdim) if kdim is not None else embed_dim
        self.vdim = int(vdim) if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _split_heads(self, x):
        """[batch, length, embed] -> [batch, heads, length, head_dim]."""
        x = reshape(x, [0, 0, self.num_heads, self.head_dim])
        return transpose(x, [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Projected keys and values split into heads:
        ``[batch, num_heads, length, head_dim]`` each."""
        _check_last_dim(key, self.kdim, 'key', 'MultiHeadAttention')
        _check_last_dim(value, self.vdim, 'value', 'MultiHeadAttention')
        return self._split_heads(self.k_proj(key)), self._split_heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002  (Paddle's name)
        """``StaticCache(compute_kv(key, value))`` for ``type=StaticCache``;
        for ``Cache``: empty ``[batch, num_heads, 0, head_dim]`` tensors when
        ``value`` is None (``key`` gives batch and dtype), else ``Cache(key, value)``."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, key if value is None else value))
        if value is None:
            rest = [self.num_heads, 0, self.head_dim]
            dtype = str(_dt.convert_dtype(key.dtype))
            return self.Cache(_batch_full(key, 0, rest, 0.0, dtype),
                              _batch_full(key, 0, rest, 0.0, dtype))
        return self.Cache(key, value)

    def _prepare_qkv(self, query, key, value, cache):
        q = self._split_heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = concat([cache.k, k], axis=2)
            v = concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return q, k, v, cache

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        _check_last_dim(query, self.embed_dim, 'query', 'MultiHeadAttention')
        key = query if key is None else key
        value = query if value is None else value
        if cache is not None and not isinstance(cache, (self.Cache, self.StaticCache)):
            raise TypeError("MultiHeadAttention: cache must be a MultiHeadAttention.Cache or "
                            "StaticCache, got %s" % type(cache).__name__)
        q, k, v, new_cache = self._prepare_qkv(query, key, value, cache)
        scores = matmul(scale(q, self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            scores = scores + _convert_attention_mask(attn_mask, scores.dtype)
        weights = F.softmax(scores, axis=-1)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training,
                                mode='upscale_in_train')
        out = transpose(matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(reshape(out, [0, 0, self.embed_dim]))
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(new_cache)
        return out if len(outs) == 1 else tuple(outs)

    def extra_repr(self):
        s = 'embed_dim=%d, num_heads=%d' % (self.embed_dim, self.num_heads)
        if self.kdim != self.embed_dim or self.vdim != self.embed_dim:
            s += ', kdim=%d, vdim=%d' % (self.kdim, self.vdim)
        if self.dropout:
            s += ', dropout=%s' % self.dropout
        return s


def _activation(name, api):
    fn = getattr(F, name, None) if isinstance(name, str) else None
    if fn is None:
        raise ValueError("%s: activation must be the name of a framework.nn.functional "
                         "activation such as 'relu' or 'gelu', got %r" % (api, name))
    return fn


def _config(frame_locals):
    """The constructor arguments, kept so ``TransformerEncoder`` /
    ``TransformerDecoder`` can build fresh copies of a layer."""
    cfg = dict(frame_locals)
    cfg.pop('self')
    cfg.pop('__class__', None)
    return cfg


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward network
    (``linear2(dropout(activation(linear1(x))))``), each wrapped in
    residual + dropout + layer norm (pre- or post-norm, see ``normalize_before``).

    ``attn_dropout`` / ``act_dropout`` default to ``dropout``. A list of two
    ``weight_attr``/``bias_attr`` gives the attention's and the FFN's.

    ``forward(src, src_mask=None, cache=None)``.
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation='relu',
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = _config(locals())
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 2)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode='upscale_in_train')
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode='upscale_in_train')
        self.dropout2 = Dropout(dropout, mode='upscale_in_train')
        self.activation = _activation(activation, 'TransformerEncoderLayer')

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, cache)

    def gen_cache(self, src):
        """An empty incremental ``MultiHeadAttention.Cache`` for ``src``'s batch."""
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


def _clones(layer, num_layers, api):
    """``layer`` then ``num_layers - 1`` freshly initialised layers built
    from its constructor arguments (as Paddle)."""
    if int(num_layers) < 1:
        raise ValueError("%s: num_layers must be at least 1, got %r" % (api, num_layers))
    cfg = getattr(layer, '_config', None)
    if cfg is None and num_layers > 1:
        raise TypeError("%s: the layer to stack must record its constructor arguments in "
                        "_config (as TransformerEncoderLayer/TransformerDecoderLayer do), "
                        "got %s" % (api, type(layer).__name__))
    return LayerList([layer if i == 0 else type(layer)(**cfg) for i in range(int(num_layers))])


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the given one first, the others built
    from its configuration), then ``norm`` if given.

    ``forward(src, src_mask=None, cache=None)``; ``cache`` is the list from
    ``gen_cache``.
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, 'TransformerEncoder')
        self.num_layers = int(num_layers)
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, c = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self-attention, encoder-decoder (cross) attention and a feed-forward
    network, each with residual + dropout + layer norm. A list of three
    ``weight_attr``/``bias_attr`` gives self-attention's, cross-attention's
    and the FFN's.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``;
    ``cache`` is ``(Cache, StaticCache)`` from ``gen_cache``.
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation='relu',
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = _config(locals())
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 3)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                             weight_attr=weight_attrs[1],
                                             bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout, mode='upscale_in_train')
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode='upscale_in_train')
        self.dropout2 = Dropout(dropout, mode='upscale_in_train')
        self.dropout3 = Dropout(dropout, mode='upscale_in_train')
        self.activation = _activation(activation, 'TransformerDecoderLayer')

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        """``(Cache, StaticCache)``: an empty incremental cache for the
        self-attention and the projected ``memory`` for the cross-attention."""
        return (self.self_attn.gen_cache(memory, type=self.self_attn.Cache),
                self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache))


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers, then ``norm`` if given.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``.
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, 'TransformerDecoder')
        self.num_layers = int(num_layers)
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        output = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)
            else:
                output, c = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                                  cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attrs(attr, what):
    """(encoder attrs, decoder attrs) from a Transformer-level attribute:
    a list of 1, 2 or 3 items (self-attn/cross-attn/FFN, as Paddle) or one."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[1]]
    if len(attr) == 3:
        return [attr[0], attr[2]], list(attr)
    raise ValueError("Transformer: %s must have 1, 2 or 3 items when it is a list, got %d"
                     % (what, len(attr)))


class Transformer(Layer):
    """Encoder-decoder Transformer (no embeddings or output projection);
    each stack ends with a LayerNorm.

    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None)``
    returns ``[batch, tgt_length, d_model]``.

    >>> import framework as paddle
    >>> model = paddle.nn.Transformer(16, 2, 1, 1, 32)
    >>> model(paddle.rand([2, 4, 16]), paddle.rand([2, 6, 16])).shape
    paddle.Size([2, 6, 16])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation='relu', attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        enc_w, dec_w = _split_attrs(weight_attr, 'weight_attr')
        enc_b, dec_b = _split_attrs(bias_attr, 'bias_attr')
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            attn_dropout, act_dropout, normalize_before,
                                            enc_w, enc_b)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            attn_dropout, act_dropout, normalize_before,
                                            dec_w, dec_b)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """``[length, length]`` float mask: 0 on and below the diagonal, -inf above
        (position i may attend to positions <= i)."""
        length = int(length)
        return triu(full([length, length], -np.inf, _dt.get_default_dtype()), 1)
