"""ONNX export (``paddle.onnx.export``): Programs to ONNX models that run in
onnxruntime and other ONNX runtimes. Needs the optional extra
``pip install 'framework[onnx]'`` (onnx; onnxruntime to run the models)."""
from .export import DEFAULT_OPSET, export, program_to_model, save_model
from .graph import OnnxExportError

__all__ = ['export']
