"""jusText parameters, their validation and the named presets.

The five parameters of Algorithm 2.2 (seed 003, Sect. 2.7.2) plus the heading
options of the justext package. Paragraph length is measured either in
characters (the justext package: defaults 70/200) or in tokens (the thesis:
Table 2.7), named by ``length_unit``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..errors import OptionError, UnknownOptions

LENGTH_UNITS = ("chars", "tokens")


@dataclass(frozen=True)
class JustextParams:
    length_low: int = 70
    length_high: int = 200
    stopwords_low: float = 0.30
    stopwords_high: float = 0.32
    max_link_density: float = 0.2
    length_unit: str = "chars"
    max_heading_distance: int = 200     # characters, as in the justext package
    no_headings: bool = False

    def __post_init__(self) -> None:
        if self.length_unit not in LENGTH_UNITS:
            raise OptionError(f"length_unit must be one of {', '.join(LENGTH_UNITS)}, not {self.length_unit!r}")
        for name in ("length_low", "length_high", "max_heading_distance"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise OptionError(f"{name} must be a non-negative integer, not {v!r}")
        if self.length_low > self.length_high:
            raise OptionError(f"length_low ({self.length_low}) must be <= length_high ({self.length_high})")
        for name in ("stopwords_low", "stopwords_high", "max_link_density"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise OptionError(f"{name} must be a number in [0, 1], not {v!r}")
        if self.stopwords_low > self.stopwords_high:
            raise OptionError(f"stopwords_low ({self.stopwords_low}) must be <= stopwords_high ({self.stopwords_high})")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def language_independent(self) -> "JustextParams":
        """The parameters for a page whose language has no stoplist.

        jusText's language-independent mode (the justext package's documented
        setting): an empty stoplist with both stop-word thresholds at 0, so
        paragraphs are judged by length and link density alone.
        """
        return replace(self, stopwords_low=0.0, stopwords_high=0.0)

    def with_options(self, **options: Any) -> "JustextParams":
        """A copy with some parameters replaced; unknown names are refused."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise UnknownOptions(f"unknown jusText option(s): {', '.join(unknown)}; known: {', '.join(sorted(names))}",
                                 tuple(unknown), tuple(sorted(names)))
        converted = {}
        for f in fields(self):
            if f.name in options and options[f.name] is not None:
                converted[f.name] = _convert(f.name, options[f.name], f.type)
        return replace(self, **converted)


def _convert(name: str, value: Any, typ: Any) -> Any:
    typ = typ if isinstance(typ, str) else getattr(typ, "__name__", str(typ))
    try:
        if typ == "int" and isinstance(value, str):
            return int(value)
        if typ == "float" and isinstance(value, str):
            return float(value)
        if typ == "bool" and isinstance(value, str):
            low = value.lower()
            if low not in ("1", "0", "true", "false", "yes", "no"):
                raise ValueError(value)
            return low in ("1", "true", "yes")
    except ValueError:
        raise OptionError(f"invalid value for {name}: {value!r}") from None
    return value


# Table 2.7 of seed 003 (jusText_A..D), lengths in tokens; "justext" are the
# justext package's defaults, lengths in characters.
PRESETS: dict[str, JustextParams] = {
    "justext": JustextParams(),
    "A": JustextParams(length_low=10, length_high=30, stopwords_low=0.30, stopwords_high=0.32,
                       max_link_density=0.2, length_unit="tokens"),
    "B": JustextParams(length_low=0, length_high=26, stopwords_low=0.30, stopwords_high=0.32,
                       max_link_density=0.2, length_unit="tokens"),
    "C": JustextParams(length_low=10, length_high=25, stopwords_low=0.25, stopwords_high=0.25,
                       max_link_density=0.2, length_unit="tokens"),
    "D": JustextParams(length_low=10, length_high=20, stopwords_low=0.20, stopwords_high=0.25,
                       max_link_density=0.2, length_unit="tokens"),
}


def preset(name: str) -> JustextParams:
    try:
        return PRESETS[name]
    except KeyError:
        raise OptionError(f"unknown preset {name!r}; choose from: {', '.join(PRESETS)}") from None
