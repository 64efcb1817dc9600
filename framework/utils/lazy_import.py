"""Optional dependencies imported on first use, with an install hint."""
import importlib


def try_import(module_name, err_msg=None):
    """Import ``module_name`` or raise ImportError saying how to install it."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        package = module_name.split('.')[0]
        raise ImportError(err_msg or "%s is needed for this feature but is not installed; "
                          "install it with: pip install %s" % (module_name, package)) from None
