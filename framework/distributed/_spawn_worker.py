"""One rank of ``paddle.distributed.spawn``: load the function and run it."""
import importlib
import pickle
import runpy
import sys


def _resolve(spec):
    if spec['module'] == '__main__':
        if spec['main_path'] is None:
            raise RuntimeError("paddle.distributed.spawn: func comes from an interactive "
                               "__main__; define it in a module or script file")
        namespace = runpy.run_path(spec['main_path'], run_name='__mp_main__')
        obj = namespace[spec['name'].split('.')[0]]
        rest = spec['name'].split('.')[1:]
    else:
        obj = importlib.import_module(spec['module'])
        rest = spec['name'].split('.')
    for part in rest:
        obj = getattr(obj, part)
    return obj


def main(path):
    with open(path, 'rb') as f:
        spec = pickle.load(f)
    func = _resolve(spec)
    import framework.distributed as dist
    dist.init_parallel_env()
    func(*spec['args'])


if __name__ == '__main__':
    main(sys.argv[1])
