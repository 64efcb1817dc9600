"""``framework.vision``: data sets and image transforms (``paddle.vision``)."""
from . import datasets, transforms  # noqa: F401
from .datasets.backend import get_image_backend, set_image_backend  # noqa: F401
