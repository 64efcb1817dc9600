"""Containers: Sequential, LayerList, LayerDict, ParameterList.

>>> import framework as paddle
>>> net = paddle.nn.Sequential(('fc1', paddle.nn.Linear(4, 8)), ('act', paddle.nn.ReLU()),
...                            ('fc2', paddle.nn.Linear(8, 2)))
>>> net(paddle.ones([3, 4])).shape, len(net), type(net['act']).__name__
(paddle.Size([3, 2]), 3, 'ReLU')
"""
import collections
from collections import OrderedDict

from ...dygraph.tensor import Parameter
from .layers import Layer

__all__ = ['Sequential', 'LayerList', 'LayerDict', 'ParameterList', 'ParameterDict']


def _index(i, n, what):
    if not isinstance(i, int):
        i = i.__index__() if hasattr(i, '__index__') else i
    if not isinstance(i, int):
        raise TypeError("%s indices must be integers or slices, got %s" % (what, type(i).__name__))
    if not -n <= i < n:
        raise IndexError("%s index %d is out of range for length %d" % (what, i, n))
    return i + n if i < 0 else i


class Sequential(Layer):
    """Runs its layers in order, each on the previous one's output.

    ``Sequential(l1, l2)`` names them '0', '1'; ``Sequential(('a', l1), ('b', l2))``
    or ``Sequential(OrderedDict(a=l1, b=l2))`` uses the given names.
    """

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, OrderedDict)):
            items = list(layers[0].items())
        elif layers and all(isinstance(x, (tuple, list)) for x in layers):
            items = []
            for pair in layers:
                if len(pair) != 2 or not isinstance(pair[0], str):
                    raise TypeError("Sequential: named entries must be (name, layer) pairs, "
                                    "got %r" % (pair,))
                items.append(tuple(pair))
        else:
            items = [(str(i), layer) for i, layer in enumerate(layers)]
        for name, layer in items:
            if not isinstance(layer, Layer):
                raise TypeError("Sequential: entry %r is a %s, not a Layer"
                                % (name, type(layer).__name__))
            self.add_sublayer(name, layer)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return Sequential(OrderedDict(list(self._sub_layers.items())[key]))
        if isinstance(key, str):
            return self._sub_layers[key]
        keys = list(self._sub_layers)
        return self._sub_layers[keys[_index(key, len(keys), 'Sequential')]]

    def __setitem__(self, key, layer):
        if not isinstance(layer, Layer):
            raise TypeError("Sequential: can only store Layers, got %s" % type(layer).__name__)
        if isinstance(key, str):
            self.add_sublayer(key, layer)
            return
        keys = list(self._sub_layers)
        self._sub_layers[keys[_index(key, len(keys), 'Sequential')]] = layer

    def __delitem__(self, key):
        keys = list(self._sub_layers)
        positional = keys == [str(i) for i in range(len(keys))]
        if isinstance(key, slice):
            for k in keys[key]:
                del self._sub_layers[k]
        elif isinstance(key, str):
            del self._sub_layers[key]
        else:
            del self._sub_layers[keys[_index(key, len(keys), 'Sequential')]]
        if positional:   # keep '0', '1', ... contiguous, as indexing expects
            layers = list(self._sub_layers.values())
            self._sub_layers.clear()
            for i, layer in enumerate(layers):
                self._sub_layers[str(i)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.values()))

    def append(self, layer):
        n = len(self._sub_layers)
        while str(n) in self._sub_layers:
            n += 1
        self.add_sublayer(str(n), layer)
        return self

    def extend(self, layers):
        """Append each layer of ``layers`` (a Sequential or any iterable of Layers)."""
        layers = list(layers)
        for layer in layers:
            if not isinstance(layer, Layer):
                raise TypeError("Sequential.extend: every item must be a Layer, got %s"
                                % type(layer).__name__)
        for layer in layers:
            self.append(layer)
        return self

    def insert(self, index, module):
        """Put layer ``module`` at position ``index`` (Paddle's and PyTorch's
        Sequential.insert: the layers after it move one place on, and the
        positional names stay '0', '1', ...)."""
        if not isinstance(module, Layer):
            raise TypeError("Sequential.insert: module must be a Layer, got %s"
                            % type(module).__name__)
        n = len(self._sub_layers)
        if not -n <= index <= n:
            raise IndexError("Sequential.insert: index %d out of range for %d layers"
                             % (index, n))
        layers = list(self._sub_layers.values())
        layers.insert(index, module)
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self._sub_layers[str(i)] = layer
        return self

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, registered so their parameters are found."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.extend(sublayers)

    def _check(self, layer):
        if not isinstance(layer, Layer):
            raise TypeError("LayerList: can only hold Layers, got %s" % type(layer).__name__)
        return layer

    def _renumber(self, layers):
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self._sub_layers[str(i)] = layer

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return LayerList(layers[idx])
        return layers[_index(idx, len(layers), 'LayerList')]

    def __setitem__(self, idx, layer):
        n = len(self._sub_layers)
        self._sub_layers[str(_index(idx, n, 'LayerList'))] = self._check(layer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[_index(idx, len(layers), 'LayerList')]
        self._renumber(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.values()))

    def append(self, sublayer):
        self._sub_layers[str(len(self._sub_layers))] = self._check(sublayer)
        return self

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self

    def insert(self, index, sublayer):
        layers = list(self._sub_layers.values())
        n = len(layers)
        if not -n <= index <= n:
            raise IndexError("LayerList.insert: index %d out of range for length %d" % (index, n))
        layers.insert(index, self._check(sublayer))
        self._renumber(layers)

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError("LayerList is a container and has no forward(); "
                                  "iterate over it in your own forward")


class LayerDict(Layer):
    """An ordered dict of sublayers."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers))

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        if isinstance(sublayers, (OrderedDict, LayerDict, collections.abc.Mapping)):
            pairs = sublayers.items()
        else:
            pairs = []
            for i, kv in enumerate(sublayers):
                if not isinstance(kv, (tuple, list)) or len(kv) != 2:
                    raise ValueError("LayerDict.update: element %d must be a (key, layer) "
                                     "pair, got %r" % (i, kv))
                pairs.append(kv)
        for key, layer in pairs:
            if not isinstance(layer, Layer):
                raise TypeError("LayerDict: value for %r must be a Layer, got %s"
                                % (key, type(layer).__name__))
            self.add_sublayer(key, layer)

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError("LayerDict is a container and has no forward()")


class ParameterList(Layer):
    """A list of Parameters, registered under '0', '1', ..."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for p in parameters:
                self.append(p)

    def _check(self, p):
        if not isinstance(p, Parameter):
            raise TypeError("ParameterList: can only hold Parameters, got %s"
                            % type(p).__name__)
        return p

    def __getitem__(self, idx):
        params = list(self._parameters.values())
        if isinstance(idx, slice):
            return ParameterList(params[idx])
        return params[_index(idx, len(params), 'ParameterList')]

    def __setitem__(self, idx, param):
        n = len(self._parameters)
        self._parameters[str(_index(idx, n, 'ParameterList'))] = self._check(param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter):
        self._parameters[str(len(self._parameters))] = self._check(parameter)
        return self

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError("ParameterList is a container and has no forward()")


class ParameterDict(Layer):
    """An ordered dict of Parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        self.add_parameter(key, param)

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters))

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        pairs = parameters.items() if hasattr(parameters, 'items') else parameters
        for key, p in pairs:
            self.add_parameter(key, p)

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError("ParameterDict is a container and has no forward()")
