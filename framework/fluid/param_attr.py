from ..param_attr import ParamAttr  # noqa: F401
