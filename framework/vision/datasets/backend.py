"""Which image type the vision data sets hand to transforms.

'cv2' (the default here): numpy arrays, no extra dependency. 'pil': PIL images,
available when Pillow is installed. (Paddle defaults to 'pil'; numpy is the
default here so results do not depend on whether Pillow happens to be installed.)
"""
_backend = ['cv2']
_BACKENDS = ('pil', 'cv2')


def _check(backend, api):
    if backend not in _BACKENDS:
        raise ValueError("%s: image backend should be 'pil' or 'cv2', got %r" % (api, backend))
    if backend == 'pil':
        try:
            import PIL.Image  # noqa: F401
        except ImportError:
            raise ImportError("%s: backend 'pil' needs Pillow (pip install pillow); use "
                              "backend='cv2' for numpy images" % api) from None
    return backend


def set_image_backend(backend):
    """Choose 'cv2' (numpy arrays) or 'pil' (PIL images) for the vision data sets."""
    _backend[0] = _check(backend, 'set_image_backend')


def get_image_backend():
    return _backend[0]


def resolve_backend(backend, api):
    return _check(get_image_backend() if backend is None else backend, api)
