"""``paddle.framework.ir``: questions about a static Program's graph."""


def get_data_vars(program):
    """Names of the variables ``static.data`` declared in ``program``."""
    return [name for name, var in program.global_block().vars.items()
            if getattr(var, 'is_data', False)]
