"""``framework.vision.ops`` (Paddle's ``paddle.vision.ops``): detection and
region operators and the model zoo's conv block."""
from .conv_norm import ConvNormActivation  # noqa: F401

__all__ = []
