"""``framework.vision``: data sets and image transforms (``paddle.vision``)."""
from . import datasets, ops, transforms  # noqa: F401
from .datasets.backend import get_image_backend, set_image_backend  # noqa: F401
from . import models  # noqa: F401,E402
from .models import *  # noqa: F401,F403,E402  (paddle.vision re-exports the zoo)
