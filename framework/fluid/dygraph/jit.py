from ...jit import TracedLayer, declarative, load, save, to_static  # noqa: F401
