"""(being written) ops: reduce."""
__all__ = []
TENSOR_METHODS = {}
