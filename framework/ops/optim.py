"""(being written) ops: optim."""
__all__ = []
TENSOR_METHODS = {}
