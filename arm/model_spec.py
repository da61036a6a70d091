"""What a model file gives the flow: the module, example inputs and calibration data.

A model file exposes a factory function returning a ``ModelSpec``; tools name it as
``package.module:function`` (e.g. ``models.small_cnn:model``).
"""

from __future__ import annotations

import dataclasses
import importlib

import torch


class ModelSpecError(ValueError):
    """A model reference does not lead to a usable ``ModelSpec``."""


@dataclasses.dataclass
class ModelSpec:
    """A model to compile.

    Args:
        module: the float model; it is put in eval mode before export.
        example_inputs: one set of inputs; it fixes the exported shapes.
        calibration_inputs: input sets that quantization observes; defaults to ``[example_inputs]``.
    """

    module: torch.nn.Module
    example_inputs: tuple[torch.Tensor, ...]
    calibration_inputs: list[tuple[torch.Tensor, ...]] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.module, torch.nn.Module):
            raise ModelSpecError(f"ModelSpec.module must be a torch.nn.Module, got {type(self.module).__name__}")
        self.example_inputs = _input_tuple(self.example_inputs, "example_inputs")
        self.calibration_inputs = [
            _input_tuple(sample, f"calibration_inputs[{index}]") for index, sample in enumerate(self.calibration_inputs)
        ] or [self.example_inputs]


def load_model_spec(reference: str) -> ModelSpec:
    """Imports ``package.module:function`` and calls the function, which must return a ``ModelSpec``."""
    module_name, separator, function_name = reference.partition(":")
    if not separator or not module_name or not function_name:
        raise ModelSpecError(f"model reference {reference!r} must look like 'package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ModelSpecError(
            f"cannot import model module {module_name!r} ({error}); run from the directory that contains "
            "the package or add it to PYTHONPATH"
        ) from None
    except Exception as error:  # the model file itself is broken; say so instead of crashing the tool
        raise ModelSpecError(
            f"importing model module {module_name!r} raised {type(error).__name__}: {error}"
        ) from error
    factory = getattr(module, function_name, None)
    if not callable(factory):
        raise ModelSpecError(f"model module {module_name!r} has no function {function_name!r}")
    try:
        spec = factory()
    except Exception as error:
        raise ModelSpecError(f"model factory {reference} raised {type(error).__name__}: {error}") from error
    if not isinstance(spec, ModelSpec):
        raise ModelSpecError(
            f"{reference} returned {type(spec).__name__}; a model factory must return arm.model_spec.ModelSpec"
        )
    return spec


def _input_tuple(inputs: object, what: str) -> tuple[torch.Tensor, ...]:
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)) or not all(isinstance(t, torch.Tensor) for t in inputs):
        raise ModelSpecError(f"ModelSpec.{what} must be a tuple of torch.Tensor, got {type(inputs).__name__}")
    return tuple(inputs)
