"""``paddle.framework.OpProtoHolder``: the declarations of the registered ops
(Paddle's op protos): each op's inputs, outputs and attributes by name."""
from ..ops import registry


class _Slot:
    __slots__ = ('name', 'duplicable', 'dispensable')

    def __init__(self, name, duplicable=False, dispensable=False):
        self.name, self.duplicable, self.dispensable = name, duplicable, dispensable

    def __repr__(self):
        return self.name


class _Attr:
    __slots__ = ('name', 'default')

    def __init__(self, name, default):
        self.name, self.default = name, default

    def __repr__(self):
        return self.name


class OpProto:
    """One op's declaration: ``type``, ``inputs``/``outputs`` (``name``,
    ``duplicable`` for lists, ``dispensable`` for optional) and ``attrs``."""

    def __init__(self, op):
        self.type = op.name
        self.inputs = [_Slot(n, v, o) for n, v, o in zip(op.input_names, op.variadic,
                                                          op.optional)]
        self.outputs = [_Slot(n, v) for n, v in zip(op.output_names, op.output_variadic)]
        self.attrs = [_Attr(n, d) for n, d in zip(op.attr_names, op.attr_defaults)]
        self.comment = op.doc or ''

    def __repr__(self):
        return '<OpProto %s>' % self.type


class OpProtoHolder:
    _instance = None

    @classmethod
    def instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def __init__(self):
        self.op_proto_map = {name: OpProto(op) for name, op in registry.all_ops().items()}

    def get_op_proto(self, type):  # noqa: A002
        if type not in self.op_proto_map:
            if not registry.has_op(type):
                raise ValueError('Operator "%s" has not been registered.' % type)
            self.op_proto_map[type] = OpProto(registry.lookup(type))
        return self.op_proto_map[type]

    def has_op_proto(self, type):  # noqa: A002
        return type in self.op_proto_map or registry.has_op(type)

    def update_op_proto(self, new_op_list=None):
        """Add the ops registered since; returns their names."""
        added = [n for n in registry.all_ops() if n not in self.op_proto_map]
        for n in added:
            self.op_proto_map[n] = OpProto(registry.lookup(n))
        return added

    @staticmethod
    def generated_op_attr_names():
        """Attributes every op of a program gets besides its own."""
        return {'op_role', 'op_role_var', 'op_namescope', 'op_callstack', 'op_device'}
