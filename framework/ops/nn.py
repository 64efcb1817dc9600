"""(being written) ops: nn."""
__all__ = []
TENSOR_METHODS = {}
