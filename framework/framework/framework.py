"""``paddle.framework.framework``: the default floating dtype."""
from ..dtype import get_default_dtype, set_default_dtype  # noqa: F401
