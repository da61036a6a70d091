"""TosaSpecification parses what ExecuTorch's Arm backend names its targets, and says what is wrong otherwise."""

import pytest

from arm.tosa.specification import TosaSpecification


def test_int_and_fp_together_lower_as_int_and_print_back() -> None:
    for text in ("TOSA-1.0+INT+FP", "TOSA-1.0+FP+INT"):
        spec = TosaSpecification.from_string(text)
        assert spec.is_int and not spec.is_fp and spec.also_fp
        assert str(spec) == "TOSA-1.0+INT+FP"
    with_extensions = TosaSpecification.from_string("TOSA-1.0+INT+FP+int16+u85")
    assert with_extensions.has("int16") and with_extensions.has("u85")
    assert str(with_extensions) == "TOSA-1.0+INT+FP+int16+u85"


def test_single_profiles_are_unchanged() -> None:
    assert str(TosaSpecification.from_string("TOSA-1.0+INT+int16+u55")) == "TOSA-1.0+INT+int16+u55"
    assert TosaSpecification.from_string("TOSA-1.0+FP").is_fp


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("TOSA-1.0+int16", "names no TOSA profile"),
        ("TOSA-1.0+INT+INT", "names a profile twice"),
        ("TOSA-1.0+INT+int3", "unknown TOSA extension"),
        ("TOSA-1.1+INT", "only TOSA 1.0"),
    ],
)
def test_bad_specifications_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TosaSpecification.from_string(text)
