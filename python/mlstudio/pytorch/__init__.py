"""``mlstudio.pytorch``: ``from mlstudio.pytorch import PyTorch``, as ``sagemaker.pytorch``."""

from .estimator import PyTorch

__all__ = ["PyTorch"]
