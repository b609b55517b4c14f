"""``PyTorch`` (``sagemaker.pytorch.estimator``): a PyTorch script as a studio job. The script
runs with the machine's Python (``$MLSTUDIO_PYTHON``, else Debian's ``/usr/bin/python3`` with
``python3-torch``); ``distribution`` takes SageMaker's dicts (``torch_distributed``,
``pytorchddp``, ``smdistributed``, ``mpi``), SPEC.md says what each starts.
"""

from ..estimator import Estimator


class PyTorch(Estimator):
    """SageMaker's PyTorch estimator: ``PyTorch(entry_point="train.py", instance_count=2,
    distribution={"torch_distributed": {"enabled": True}}, ...)``."""

    def __init__(
        self,
        entry_point=None,
        framework_version=None,
        py_version=None,
        source_dir=None,
        hyperparameters=None,
        image_uri=None,
        distribution=None,
        compiler_config=None,
        training_recipe=None,
        recipe_overrides=None,
        **kwargs
    ):
        extra = {
            "framework_version": framework_version,
            "py_version": py_version,
            "compiler_config": compiler_config,
            "training_recipe": training_recipe,
            "recipe_overrides": recipe_overrides,
        }
        super().__init__(
            entry_point=entry_point,
            source_dir=source_dir,
            hyperparameters=hyperparameters,
            image_uri=image_uri,
            distribution=distribution,
            **{k: v for k, v in extra.items() if v is not None},
            **kwargs
        )
        self.framework_version = framework_version
        self.py_version = py_version
