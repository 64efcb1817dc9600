"""1.8 initializer names (``NormalInitializer(loc, scale)``, ``MSRA``, ...)."""
from ..nn import initializer as _I


def NormalInitializer(loc=0.0, scale=1.0, seed=0):
    return _I.Normal(mean=loc, std=scale)


def UniformInitializer(low=-1.0, high=1.0, seed=0):
    return _I.Uniform(low=low, high=high)


def ConstantInitializer(value=0.0, force_cpu=False):
    return _I.Constant(value)


def TruncatedNormalInitializer(loc=0.0, scale=1.0, seed=0):
    return _I.TruncatedNormal(mean=loc, std=scale)


def XavierInitializer(uniform=True, fan_in=None, fan_out=None, seed=0):
    cls = _I.XavierUniform if uniform else _I.XavierNormal
    return cls(fan_in=fan_in, fan_out=fan_out)


def MSRAInitializer(uniform=True, fan_in=None, seed=0):
    cls = _I.KaimingUniform if uniform else _I.KaimingNormal
    return cls(fan_in=fan_in)


Normal, Uniform, Constant = NormalInitializer, UniformInitializer, ConstantInitializer
TruncatedNormal, Xavier, MSRA = TruncatedNormalInitializer, XavierInitializer, MSRAInitializer
