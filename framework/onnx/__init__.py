"""ONNX export (``paddle.onnx.export``): Programs to ONNX models that run in
onnxruntime and other ONNX runtimes. Needs the optional extra
``pip install 'framework[onnx]'`` (onnx; onnxruntime to run the models)."""
from . import control_flow  # noqa: F401  (declares the cond/while lowerings)
from .export import DEFAULT_OPSET, export, export_program, program_to_model, save_model
from .graph import OnnxExportError

__all__ = ['export', 'export_program']
